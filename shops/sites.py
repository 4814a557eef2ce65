"""A shop's address as the place it names: host and path, whatever its scheme, case and
trailing slash. Two connected shops never name the same place (intake/shop_form.py), and a
delivery must come from the place its shop names (each platform's check, intake/platforms.py)."""

from urllib.parse import urlsplit


def site_of(address: str) -> str:
    """https://Tea-House.example/shop/ → tea-house.example/shop"""
    parts = urlsplit(address if "//" in address else f"//{address}")
    return f"{parts.netloc.lower()}{parts.path.rstrip('/')}"
