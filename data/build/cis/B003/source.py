import re
import socket

EMAIL_RE = re.compile(r".+@.+")


def domain_resolves(domain):
    try:
        socket.gethostbyname(domain)
        return True
    except socket.error:
        return False


def validate_email(email, check_domain=False):
    if not EMAIL_RE.match(email):
        return False
    if check_domain:
        return domain_resolves(email.split("@")[1])
    return True
