"""Syntax-only email validation.

Only the shape of an address is checked. Whether the domain exists or the
mailbox accepts mail cannot be known without a network lookup, which this
module deliberately does not do.
"""
import re

# Local part: dot-separated runs of the characters RFC 5322 allows unquoted.
_LOCAL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
# Domain label: letters, digits and inner hyphens, at most 63 characters.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = rf"{_LABEL}(?:\.{_LABEL})*\.[A-Za-z]{{2,63}}"
EMAIL_PATTERN = re.compile(rf"{_LOCAL}@{_DOMAIN}")

MAX_LENGTH = 254
MAX_LOCAL_LENGTH = 64


def is_valid_email(address: str) -> bool:
    """Return True if `address` is a syntactically valid email address."""
    if not isinstance(address, str) or len(address) > MAX_LENGTH:
        return False
    if EMAIL_PATTERN.fullmatch(address) is None:
        return False
    local_part = address.rsplit("@", 1)[0]
    return len(local_part) <= MAX_LOCAL_LENGTH
