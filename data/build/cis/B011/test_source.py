import inspect

import pytest

import solution
from solution import is_valid_email

VALID = [
    "user@example.com",
    "user@sub.domain.co.uk",
    "first.last@example.org",
    "user+tag@example.io",
    "o'brien@example.ie",
    "x@a-b.example",
    "a" * 64 + "@example.com",
]

INVALID = [
    "",
    "plainaddress",
    "@example.com",
    "user@",
    "user@@example.com",
    "user@example",
    "user@.example.com",
    "user@-example.com",
    "user@example-.com",
    ".user@example.com",
    "user.@example.com",
    "us..er@example.com",
    "user name@example.com",
    "user@exa_mple.com",
    "user@example.com\n",
    "a" * 65 + "@example.com",
    "u@" + "d" * 250 + ".com",
]


@pytest.mark.parametrize("address", VALID)
def test_accepts_valid_addresses(address):
    assert is_valid_email(address) is True


@pytest.mark.parametrize("address", INVALID)
def test_rejects_invalid_addresses(address):
    assert is_valid_email(address) is False


@pytest.mark.parametrize("value", [None, 42, b"user@example.com"])
def test_rejects_non_strings(value):
    assert is_valid_email(value) is False


def test_module_makes_no_network_imports():
    source = inspect.getsource(solution)
    for banned in ("socket", "dns", "urllib", "requests"):
        assert f"import {banned}" not in source
