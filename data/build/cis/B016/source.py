def fibonacci(n: int) -> int:
    """Return the n-th Fibonacci number, with F(0) = 0 and F(1) = 1.

    Uses the textbook recursion F(n) = F(n-1) + F(n-2). A memo dict is made
    for each top-level call and handed down the recursion, so the cost is
    linear rather than exponential and no state survives between calls.
    """
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError("n must be an integer")
    if n < 0:
        raise ValueError("n cannot be negative")
    return _fib(n, {0: 0, 1: 1})


def _fib(n: int, memo: dict) -> int:
    if n not in memo:
        memo[n] = _fib(n - 1, memo) + _fib(n - 2, memo)
    return memo[n]


if __name__ == "__main__":
    import sys

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    print(", ".join(str(fibonacci(i)) for i in range(count)))
