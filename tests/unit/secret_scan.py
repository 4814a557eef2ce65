"""A small scanner for things in the repository that look like secrets: private keys, cloud
and service tokens, passwords in URLs, and `password = "..."`-style literals.

Passwords and keys come from the environment or the database, never from a tracked file.
The only literals allowed are the documented development placeholders below, and values
that are visibly placeholders (`<...>`, `${...}`, empty).
"""

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

# The development values the documentation names (README, .env.example, docker-compose.yml)
# and the throwaway ones of the tests; none of them opens anything outside this machine.
ALLOWED_VALUES = frozenset(
    {
        "dev-only-insecure-key-change-me",  # Django's development key (refused in production)
        "compose-dev-only-secret-key-change-me",  # the same for docker compose
        "build-only",  # the Docker build's collectstatic
        "replace-with-50-random-characters",  # the production profile's placeholder
        "dev-mail-key",  # the mail simulator's key
        "guest",  # RabbitMQ's local-only default user (guest:guest)
        "orders",  # docker compose's own PostgreSQL and RabbitMQ
        "choose-a-password",  # the Flower example in the README
        "test-password",  # Flower in the stack tests
        "test-mail-key",  # the mail simulator in its own tests
        "wrong",  # a deliberately wrong key in the provider tests
        "pw",  # users of the admin tests
        "rita-pw",
        "victor-pw",
    }
)

# (name, pattern); a pattern's group "value", if any, is checked against the allow-list.
PATTERNS = [
    ("private key", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (
        "AWS secret access key",
        re.compile(r"(?i)aws_?secret_?access_?key\W{1,4}(?P<value>[A-Za-z0-9/+=]{40})\b"),
    ),
    ("GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("Stripe-style key", re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    (
        "password in a URL",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@'\"]+:(?P<value>[^@\s'\"/]+)@"),
    ),
    (
        "secret-like setting with a literal value",
        re.compile(
            r"(?i)\b[a-z0-9_]*(?:password|passwd|secret|api_?key|private_?key|access_?key|auth_?token)"
            # (not a key ending in "Ref": Kubernetes' secretRef names a Secret, it holds none)
            r"[a-z0-9_]*(?<!ref)['\"]?\s*(?<![=!<>])[:=](?!=)\s*(?P<quote>['\"]?)(?P<value>[^'\"\s,;)]*)(?P=quote)"
        ),
    ),
]
# <password>, $NAME, {name}, ..., and the parameter marks of SQL (?, %s).
PLACEHOLDER = re.compile(r"^(?:<[^>]*>|\$[A-Za-z_]\w*|\{\w*\}|\.\.\.|\?|%s)$")
# ${NAME} or ${NAME:-default} (compose, shell): allowed if the default is.
SUBSTITUTION = re.compile(r"^\$\{\w+(?::?-(?P<default>[^}]*))?\}$")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    kind: str
    text: str


def text_scan(text: str, *, path: str = "<text>") -> list[Finding]:
    findings = []
    code = path.endswith(".py")
    for number, line in enumerate(text.splitlines(), start=1):
        for kind, pattern in PATTERNS:
            for match in pattern.finditer(line):
                value = match.groupdict().get("value")
                if value is not None and _allowed(
                    value, quoted=bool(match.groupdict().get("quote")), code=code
                ):
                    continue
                findings.append(Finding(path, number, kind, line.strip()[:160]))
    return findings


def _allowed(value: str, *, quoted: bool, code: bool) -> bool:
    if code and not quoted:
        return True  # a Python name, call (env(...)) or expression: a string literal has quotes
    substitution = SUBSTITUTION.match(value)
    if substitution:
        return _allowed(substitution.group("default") or "", quoted=True, code=False)
    return value == "" or value in ALLOWED_VALUES or bool(PLACEHOLDER.match(value))


def repository_scan(repo: Path) -> list[Finding]:
    """Every tracked text file, as it is in the working tree."""
    paths = (
        subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    findings = []
    for relative in filter(None, paths):
        path = repo / relative
        if not path.is_file():
            continue  # deleted in the working tree
        raw = path.read_bytes()
        if b"\0" in raw[:8192]:
            continue  # binary (screenshots)
        findings += text_scan(raw.decode("utf-8", errors="replace"), path=relative)
    return findings
