from solution import fib


def test_fib_values():
    assert fib(1) == 1
    assert fib(2) == 1
    assert fib(10) == 55


def test_fib_zero():
    assert fib(0) == 0
