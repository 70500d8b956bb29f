import pytest

from solution import fibonacci


def test_base_cases():
    assert fibonacci(0) == 0
    assert fibonacci(1) == 1


def test_first_eight_values():
    assert [fibonacci(i) for i in range(8)] == [0, 1, 1, 2, 3, 5, 8, 13]


def test_negative_input_rejected():
    with pytest.raises(ValueError):
        fibonacci(-4)
