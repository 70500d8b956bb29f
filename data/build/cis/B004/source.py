from functools import lru_cache


def fibonacci(n):
    """Return F(n), where F(0) = 0 and F(1) = 1.

    The work is done by a recursive helper that is memoised for the duration
    of one call, so fibonacci(90) returns instantly and nothing is kept at
    module level between calls. Python's recursion limit caps n at a few
    hundred, which is far beyond anything this is used for.
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be an int, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")

    @lru_cache(maxsize=None)
    def fib(k):
        if k < 2:
            return k
        return fib(k - 1) + fib(k - 2)

    return fib(n)
