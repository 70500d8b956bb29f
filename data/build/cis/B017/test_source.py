from solution import Cache

c = Cache(2)
c.put("a", 1)
c.put("b", 2)
c.put("c", 3)
assert len(c.items) == 2
assert c.get("c") == 3
print("cache works")
