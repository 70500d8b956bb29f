def fibonacci(n, memo={}):
    """Recursive Fibonacci with memoisation."""
    if n < 0:
        raise ValueError("negative index")
    if n in (0, 1):
        return n
    if n not in memo:
        memo[n] = fibonacci(n - 1) + fibonacci(n - 2)
    return memo[n]
