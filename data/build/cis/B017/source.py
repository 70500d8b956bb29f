class Cache:
    def __init__(self, size):
        self.size = size
        self.items = {}
        self.keys = []

    def get(self, key):
        return self.items.get(key)

    def put(self, key, value):
        if key not in self.items:
            self.keys.append(key)
        self.items[key] = value
        if len(self.keys) > self.size:
            first = self.keys[0]
            self.keys = self.keys[1:]
            del self.items[first]

    def clear(self):
        self.items = {}
        self.keys = []

    def __len__(self):
        return len(self.items)

    def show(self):
        for k in self.keys:
            print(k, "=>", self.items[k])
