import re

EMAIL_REGEX = r"[^@\s]+@[^@\s]+\.[a-zA-Z]{2,}"


def is_email(value):
    """Syntax check only: no DNS, no SMTP."""
    return bool(re.match(EMAIL_REGEX, value))
