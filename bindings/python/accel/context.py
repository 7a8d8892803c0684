"""context.py -- accel contexts: a backend, its kernel cache, its plugins.

Most code never makes one: accel.compile, accel.load and accel.jit use one
shared context per backend name, made on first use (context(backend)).
Make a Context yourself for other options (threads, a kernel cache
folder, plugins, a run deadline).  A context lives as long as anything
made from it (programs, compiled jit functions, their traces); results of
runs do not keep it alive (accel releases them after the context is gone).
"""
import ctypes
import threading

from . import _lib, errors
from ._lib import lib

BACKENDS = {"auto": 0, "interp": 1, "cpu": 2, "cuda": 3}
BACKEND_NAMES = {v: k for k, v in BACKENDS.items()}

# Set at interpreter exit: handles are then left to the process's end
# (module teardown destroys objects in no particular order).
_exiting = [False]


def backend_code(backend):
    try:
        return BACKENDS[backend]
    except (KeyError, TypeError):
        raise errors.InvalidArgumentError(
            "backend %r: expected one of auto, interp, cpu, cuda" % (backend,),
            errors.ERR_INVALID_ARGUMENT) from None


def _bytes(s):
    return None if s is None else str(s).encode()


class Context:
    """An accel context (acc_context).

    backend: "auto" (cuda, else cpu, else interp), "interp", "cpu" or
    "cuda"; asking for one that is not available raises UnsupportedError
    saying why.  num_threads: CPU worker threads (0: one per core).
    cache_dir: the kernel cache folder (None: $XDG_CACHE_HOME/accel).
    plugins: None (the built-in plugins of the backend, or $ACC_PLUGINS),
    "none", or names/paths separated by ','.  plugin_path: folders
    searched first for plugins.  deadline: seconds every run may take
    (None: no limit; a run past it raises DeadlineError).  fp_contract:
    True lets the cpu backend fuse a * b + c into one multiply-add
    (rounded once: faster, not the interpreter's result bit for bit).
    """

    def __init__(self, backend="auto", *, num_threads=0, cache_dir=None,
                 plugins=None, plugin_path=None, deadline=None,
                 cuda_device=0, fusion_duplicate_max_ops=0,
                 fp_contract=False):
        self.handle = None
        opts = _lib.ContextOptions()
        errors.check(lib.acc_context_options_init_sized(
            ctypes.byref(opts), ctypes.sizeof(opts)))
        opts.backend = backend_code(backend)
        opts.num_threads = int(num_threads)
        # The strings must outlive the call only: accel copies them.
        keep = [_bytes(cache_dir), _bytes(plugins), _bytes(plugin_path)]
        opts.cache_dir, opts.plugins, opts.plugin_path = keep
        opts.cuda_device = int(cuda_device)
        opts.fusion_duplicate_max_ops = int(fusion_duplicate_max_ops)
        opts.fp_contract = 1 if fp_contract else 0
        opts.run_deadline_seconds = 0.0 if deadline is None else float(
            deadline)
        h = _lib.c_void_p()
        errors.check(lib.acc_context_create(ctypes.byref(opts),
                                            ctypes.byref(h)),
                     "cannot make a %s context" % backend)
        self.handle = h.value
        self.types = {}  # decoded tuple/array type pointers (dtypes.decode)
        self._lock = threading.Lock()
        code = ctypes.c_int()
        errors.check(lib.acc_context_backend(self.handle, ctypes.byref(code)))
        self.backend = BACKEND_NAMES[code.value]

    def __del__(self):
        if self.handle and not _exiting[0]:
            lib.acc_context_destroy(self.handle)
            self.handle = None

    def __repr__(self):
        return "<accel.Context backend=%s>" % self.backend

    def fail(self, status, what=None):
        """Raises the error of a failed call on this context."""
        msg = lib.acc_context_last_error(self.handle).decode() or \
            errors.last_error()
        raise errors.make_error(status, "%s: %s" % (what, msg) if what
                                else msg)

    def available(self):
        """{backend: (available, reason)} for interp, cpu and cuda."""
        out = {}
        for name in ("interp", "cpu", "cuda"):
            ok, why = ctypes.c_int(), ctypes.c_char_p()
            errors.check(lib.acc_context_backend_available(
                self.handle, BACKENDS[name], ctypes.byref(ok),
                ctypes.byref(why)))
            out[name] = (bool(ok.value), (why.value or b"").decode())
        return out

    def compile(self, source):
        """A Program of the entry points of a text program (as
        accel.compile)."""
        from .program import Program
        return Program(source, self)

    def load(self, path):
        from .program import Program
        with open(path, "r", encoding="utf-8") as f:
            return Program(f.read(), self, origin=str(path))

    def load_plugin(self, name_or_path):
        """Loads a plugin (acc_plugin_load): a name such as "cblas" or a
        path to a shared object."""
        st = lib.acc_plugin_load(self.handle, _bytes(name_or_path))
        if st:
            self.fail(st, "plugin %s" % name_or_path)

    def plugin_status(self):
        """What became of each plugin the context loads, one line each."""
        return self._text(lib.acc_plugin_status)

    def foreign_list(self):
        """Every foreign implementation registered, one line each."""
        return self._text(lib.acc_foreign_list)

    def register_c_function(self, name, library, symbol, signature):
        """Registers a C function as an implementation of foreign `name`
        (acc_register_c_function; library None: the process)."""
        st = lib.acc_register_c_function(self.handle, _bytes(name),
                                         _bytes(library), _bytes(symbol),
                                         _bytes(signature))
        if st:
            self.fail(st, "register_c_function %s" % name)

    def _text(self, fn):
        p = ctypes.c_void_p()
        st = fn(self.handle, ctypes.byref(p))
        if st:
            self.fail(st)
        return _lib.take_string(p.value)


_shared = {}
_shared_lock = threading.Lock()


def context(backend="auto"):
    """The shared context of a backend name (made on first use)."""
    ctx = _shared.get(backend)
    if ctx is None:
        backend_code(backend)
        with _shared_lock:
            ctx = _shared.get(backend)
            if ctx is None:
                ctx = _shared[backend] = Context(backend)
    return ctx


def as_context(backend, ctx):
    """The context a call asked for: `ctx` when given, else the shared
    one of `backend`."""
    if ctx is not None:
        if not isinstance(ctx, Context):
            raise errors.InvalidArgumentError(
                "context must be an accel.Context, not %s" %
                type(ctx).__name__, errors.ERR_INVALID_ARGUMENT)
        return ctx
    return context(backend)
