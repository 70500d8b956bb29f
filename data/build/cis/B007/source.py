import re

_PATTERN = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")


def normalise(address):
    """Trim surrounding spaces and lower-case the domain (the local part may be case-sensitive)."""
    address = address.strip()
    if "@" not in address:
        return address
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"


def is_valid_email(address):
    """True when `address` looks like user@domain.tld."""
    if not isinstance(address, str):
        return False
    return _PATTERN.match(address) is not None


def invalid_addresses(addresses):
    """Return the entries of `addresses` that fail validation, in order."""
    return [a for a in addresses if not is_valid_email(a)]
