import pytest

from solution import fibonacci


def test_base_cases():
    assert fibonacci(0) == 0
    assert fibonacci(1) == 1


@pytest.mark.parametrize("n, expected", [(2, 1), (5, 5), (6, 8), (10, 55), (20, 6765)])
def test_known_values(n, expected):
    assert fibonacci(n) == expected


def test_each_value_is_the_sum_of_the_previous_two():
    for n in range(2, 40):
        assert fibonacci(n) == fibonacci(n - 1) + fibonacci(n - 2)


def test_large_n_is_fast_thanks_to_memoisation():
    assert fibonacci(90) == 2880067194370816120


@pytest.mark.parametrize("bad", [-1, -10])
def test_negative_n_is_rejected(bad):
    with pytest.raises(ValueError):
        fibonacci(bad)


@pytest.mark.parametrize("bad", [2.0, "7", None, True])
def test_non_integers_are_rejected(bad):
    with pytest.raises(TypeError):
        fibonacci(bad)
