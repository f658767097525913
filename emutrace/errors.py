"""The error every layer reports to the user: one line, and the exit status to leave with.

It lives at the bottom because the bottom raises it too (a Unicorn without the TLB mode emutrace
needs); the layers above raise it or their own subclasses (LimitReached, the API's errors).
"""


class EmutraceError(Exception):
    """An error of emutrace's, reported as one line; `status` is the exit status to use."""

    def __init__(self, message: str, status: int = 125):
        super().__init__(message)
        self.status = status
