"""errors.py -- the exceptions of accel.

Every failure is an AccelError carrying `.status` (accel's status number,
accel.h's acc_status) and accel's message.  A subclass per status category
(and per status where one is common) lets callers catch what they can
handle; each also derives from the Python exception it resembles, so
`except ValueError` and `except TypeError` work as they do with numpy.
Bad arguments found by the binding itself carry `.argument` (1-based
position), `.name` (the parameter's name) and `.function`.
"""
from . import _lib

# Status numbers (accel.h, acc_status); fixed, never renumbered.
OK = 0
ERR_INVALID_ARGUMENT = 100
ERR_INVALID_HANDLE = 101
ERR_TYPE = 200
ERR_SHAPE = 201
ERR_OUT_OF_HOST_MEMORY = 300
ERR_OUT_OF_DEVICE_MEMORY = 301
ERR_UNSUPPORTED = 400
ERR_NOT_FOUND = 401
ERR_COMPILE = 500
ERR_DEVICE = 501
ERR_PLUGIN = 502
ERR_ABI_MISMATCH = 503
ERR_PARSE = 600
ERR_RUNTIME = 700
ERR_CANCELLED = 701
ERR_TIMEOUT = 702
ERR_INTERNAL = 900


class AccelError(Exception):
    """An error reported by accel (or found by the binding before calling
    it).  `status` is the acc_status number, `status_name` its name
    ("ACC_ERR_SHAPE"), `message` accel's message."""

    def __init__(self, message, status=ERR_INTERNAL, *, function=None,
                 argument=None, name=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.function = function
        self.argument = argument
        self.name = name

    @property
    def status_name(self):
        return _lib.lib.acc_status_string(self.status).decode()

    def __str__(self):
        return "%s (%s)" % (self.message, self.status_name)


# 1xx: the call itself is wrong
class InvalidArgumentError(AccelError, ValueError):
    pass


class InvalidHandleError(InvalidArgumentError):
    """A program or context used after it was closed."""


# 2xx: the program or the data does not fit
class DataError(AccelError):
    """Element types, ranks or extents disagree."""


class TypeMismatchError(DataError, TypeError):
    pass


class ShapeError(DataError, ValueError):
    pass


# 3xx: resources
class ResourceError(AccelError, MemoryError):
    pass


# 4xx: availability
class UnavailableError(AccelError):
    pass


class UnsupportedError(UnavailableError):
    pass


class NotFoundError(UnavailableError, LookupError):
    pass


# 5xx: toolchains, devices, plugins
class ToolchainError(AccelError):
    pass


class CompileError(ToolchainError):
    pass


class DeviceError(ToolchainError):
    pass


class PluginError(ToolchainError):
    pass


class ABIMismatchError(ToolchainError):
    pass


# 6xx: text
class ParseError(AccelError):
    """A text program that does not parse or type-check: the message
    starts with "LINE:COLUMN: "."""


# 7xx: a program failed while running
class RunError(AccelError, RuntimeError):
    pass


class CancelledError(RunError):
    pass


class DeadlineError(RunError):
    pass


# 9xx: a bug in accel
class InternalError(AccelError):
    pass


_BY_STATUS = {
    ERR_INVALID_HANDLE: InvalidHandleError, ERR_TYPE: TypeMismatchError,
    ERR_SHAPE: ShapeError, ERR_UNSUPPORTED: UnsupportedError,
    ERR_NOT_FOUND: NotFoundError, ERR_COMPILE: CompileError,
    ERR_DEVICE: DeviceError, ERR_PLUGIN: PluginError,
    ERR_ABI_MISMATCH: ABIMismatchError, ERR_CANCELLED: CancelledError,
    ERR_TIMEOUT: DeadlineError,
}
_BY_CATEGORY = {1: InvalidArgumentError, 2: DataError, 3: ResourceError,
                4: UnavailableError, 5: ToolchainError, 6: ParseError,
                7: RunError, 9: InternalError}


def error_class(status):
    """The exception class of an acc_status."""
    return _BY_STATUS.get(status) or _BY_CATEGORY.get(status // 100,
                                                      AccelError)


def make_error(status, message, **kw):
    return error_class(status)(message, status, **kw)


def last_error():
    """The calling thread's last accel message (acc_last_error)."""
    return _lib.lib.acc_last_error().decode("utf-8", "replace")


def check(status, what=None):
    """Raises the error of a failed call, with the thread's message."""
    if status:
        msg = last_error()
        if what:
            msg = "%s: %s" % (what, msg) if msg else what
        raise make_error(status, msg)
