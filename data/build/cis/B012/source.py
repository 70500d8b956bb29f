def fibonacci(n):
    """Return the n-th Fibonacci number, computed recursively."""
    if n <= 1:
        return n
    return fibonacci(n - 1) + fibonacci(n - 2)
