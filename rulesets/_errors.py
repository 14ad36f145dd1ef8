"""The one error type a user can cause and fix; every layer's user-facing errors derive from it."""


class VgmError(Exception):
    """A fault the user can fix. ``str(error)`` is one line: what is wrong and how to fix it.

    The command line prints it without a traceback and exits with status 2.
    """
