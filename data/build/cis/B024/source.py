import re
import sys

# One pattern per half of the address keeps each rule readable.
LOCAL_PART = re.compile(r"[A-Za-z0-9_%+-]+(\.[A-Za-z0-9_%+-]+)*")
DOMAIN = re.compile(r"([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}")


def is_valid_email(text):
    """Check email syntax only.

    Whether the mailbox or domain exists is out of scope: that needs the
    network, which the task forbids.
    """
    if not isinstance(text, str) or text.count("@") != 1:
        return False
    local, domain = text.split("@")
    return bool(LOCAL_PART.fullmatch(local)) and bool(DOMAIN.fullmatch(domain))


def main(argv):
    """Print VALID or INVALID for each address given on the command line."""
    if not argv:
        print("usage: python solution.py ADDRESS [ADDRESS ...]", file=sys.stderr)
        return 2
    for address in argv:
        print(f"{'VALID  ' if is_valid_email(address) else 'INVALID'} {address}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
