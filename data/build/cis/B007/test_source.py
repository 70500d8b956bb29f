from solution import is_valid_email


def test_simple_address():
    assert is_valid_email("user@example.com")


def test_subdomain_and_country_tld():
    assert is_valid_email("user@mail.example.co.uk")


def test_plus_and_dots_in_local_part():
    assert is_valid_email("first.last+news@example.org")


def test_missing_at():
    assert not is_valid_email("user.example.com")


def test_two_at_signs():
    assert not is_valid_email("user@@example.com")


def test_no_tld():
    assert not is_valid_email("user@localhost")


def test_empty_and_none():
    assert not is_valid_email("")
    assert not is_valid_email(None)
