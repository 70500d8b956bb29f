import pytest

from solution import is_email


@pytest.mark.parametrize("good", ["a@b.io", "first.last@sub.example.org", "x+tag@mail.co.uk"])
def test_accepts(good):
    assert is_email(good)


@pytest.mark.parametrize(
    "bad", ["", "no-at-sign.com", "two@@example.com", "user@nodot", "user@example.com trailing"]
)
def test_rejects(bad):
    assert not is_email(bad)
