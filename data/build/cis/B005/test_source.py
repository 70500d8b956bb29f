from solution import allow_request


def test_first_three_allowed():
    assert allow_request()
    assert allow_request()
    assert allow_request()


def test_fourth_blocked():
    for _ in range(3):
        allow_request()
    assert not allow_request()


def test_new_client_starts_fresh():
    assert allow_request()
