from solution import check_email


def test_valid():
    assert check_email("bob@gmail.com")


def test_uk_address():
    assert check_email("anna@domain.co.uk")


def test_no_at_sign():
    assert not check_email("bobgmail.com")
