"""The operator dashboard (/admin/dashboard/): its figures (`figures.py`) and its page
(`views.py`)."""
