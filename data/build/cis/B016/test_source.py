import pytest

import solution
from solution import fibonacci


def test_base_cases():
    assert fibonacci(0) == 0
    assert fibonacci(1) == 1


def test_first_values_match_the_sequence():
    expected = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55]
    assert [fibonacci(n) for n in range(11)] == expected


def test_larger_value():
    assert fibonacci(60) == 1548008755920


def test_negative_n_raises_value_error():
    with pytest.raises(ValueError, match="cannot be negative"):
        fibonacci(-1)


@pytest.mark.parametrize("bad", [3.5, "3", None, False])
def test_non_integer_raises_type_error(bad):
    with pytest.raises(TypeError):
        fibonacci(bad)


def test_helper_recurses_and_uses_the_memo_it_is_given():
    memo = {0: 0, 1: 1}
    assert solution._fib(12, memo) == 144
    assert sorted(memo) == list(range(13))


def test_no_state_is_shared_between_calls():
    fibonacci(30)
    memo = {0: 0, 1: 1}
    solution._fib(3, memo)
    assert sorted(memo) == [0, 1, 2, 3]
