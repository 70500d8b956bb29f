from datetime import datetime

MAX_REQUESTS = 3
WINDOW = 60  # seconds
request_log = []


def allow_request():
    global request_log
    now = datetime.now()
    request_log = [t for t in request_log if (now - t).seconds < WINDOW]
    if len(request_log) < MAX_REQUESTS:
        request_log.append(now)
        return True
    return False


def requests_left():
    return MAX_REQUESTS - len(request_log)


if __name__ == "__main__":
    for i in range(5):
        print(i, allow_request(), requests_left())
