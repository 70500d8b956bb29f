class RequestLimiter:
    """Gives every user `limit` requests until reset() is called."""

    def __init__(self, limit):
        self.limit = limit
        self.used = {}

    def request(self, user):
        self.used[user] = self.used.get(user, 0) + 1
        return self.used[user] <= self.limit

    def remaining(self, user):
        return max(self.limit - self.used.get(user, 0), 0)

    def reset(self):
        # called by the scheduler every minute
        self.used = {}
