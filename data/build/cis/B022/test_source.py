from solution import RequestLimiter

lim = RequestLimiter(2)
assert lim.request("ann") == True
assert lim.request("ann") == True
assert lim.request("ann") == False
lim.reset()
assert lim.request("ann") == True
print("passed")
