memo = {}
calls = 0


def fib(n):
    global calls
    calls += 1
    if n in memo:
        return memo[n]
    if n <= 2:
        return 1
    memo[n] = fib(n - 1) + fib(n - 2)
    return memo[n]


def reset_stats():
    global calls
    calls = 0


def print_stats():
    print("calls so far:", calls, "memo size:", len(memo))


if __name__ == "__main__":
    print(fib(30))
    print_stats()
