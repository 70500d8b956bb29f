from solution import is_valid_email


def test_ordinary_addresses():
    for address in ["user@example.com", "user@sub.domain.co.uk", "j.doe+list@mail.example.net"]:
        assert is_valid_email(address), address


def test_empty_string():
    assert not is_valid_email("")


def test_missing_or_repeated_at():
    assert not is_valid_email("example.com")
    assert not is_valid_email("a@b@example.com")
    assert not is_valid_email("user@@example.com")


def test_missing_parts():
    assert not is_valid_email("@example.com")
    assert not is_valid_email("user@")


def test_domain_needs_a_tld():
    assert not is_valid_email("user@example")
    assert not is_valid_email("user@example.c")


def test_misplaced_dots_and_hyphens():
    assert not is_valid_email(".user@example.com")
    assert not is_valid_email("user..name@example.com")
    assert not is_valid_email("user@.example.com")
    assert not is_valid_email("user@-example.com")


def test_whitespace_is_not_allowed():
    assert not is_valid_email(" user@example.com")
    assert not is_valid_email("user@example.com\n")


def test_non_string_input():
    assert not is_valid_email(None)
    assert not is_valid_email(["user@example.com"])
