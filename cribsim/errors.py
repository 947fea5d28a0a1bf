"""The one error type users see: a single line, no traceback, exit code 2."""


class CribsimError(Exception):
    """A user-facing error. ``str(err)`` is the whole one-line message."""

    exit_code = 2


class ConfigError(CribsimError):
    """A bad config: names the file, the key and what was expected."""

    def __init__(self, source, key, expected):
        self.source, self.key, self.expected = source, key, expected
        where = f"{source}: " if source else ""
        keypart = f"key '{key}': " if key else ""
        super().__init__(f"{where}{keypart}{expected}")


class IllegalMove(CribsimError):
    """A strategy returned a move the rules do not allow."""

    def __init__(self, message, seat=-1):
        super().__init__(message)
        self.seat = seat
