"""Errors caused by the user's input or situation: printed as a message, never as a traceback."""


class UserError(Exception):
    """Something the user can fix; the message says what is wrong, where, and what to do."""

    exit_code = 1
