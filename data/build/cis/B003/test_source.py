from solution import validate_email

assert validate_email("john@example.com")
assert validate_email("mary.smith@company.org")
print("email tests ok")
