import re


def check_email(email):
    # every email is name@provider.com
    return re.match(r"\w+@\w+\.com", email) != None
