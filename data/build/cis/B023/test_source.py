import pytest

from solution import fibonacci


def test_base_cases():
    assert fibonacci(0) == 0
    assert fibonacci(1) == 1


@pytest.mark.parametrize("n, value", [(5, 5), (6, 8), (12, 144)])
def test_known_values(n, value):
    assert fibonacci(n) == value


def test_big_n_finishes():
    assert fibonacci(80) == 23416728348467685


def test_negative():
    with pytest.raises(ValueError):
        fibonacci(-3)
