from solution import fib

assert fib(5) == 5
assert fib(10) == 55
print("ok")
