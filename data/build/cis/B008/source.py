def fib(n):
    # loop version, recursion is way too slow for big numbers
    a, b = 0, 1
    for i in range(n):
        a, b = b, a + b
    return a
