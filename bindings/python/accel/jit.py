"""jit.py -- accel.jit: Python functions compiled as accel programs.

    @accel.jit
    def dotp(xs, ys):
        return accel.fold(lambda a, b: a + b, 0,
                          accel.zipwith(lambda a, b: a * b, xs, ys))

The first call with a given signature (the element types and ranks of the
arguments) traces the function: it runs once on symbolic arguments and
builds an accel graph (_trace.py), which is compiled; later calls with
that signature run the compiled program.  Arguments:
  numpy array (or list, or DLPack object)  -> a symbolic array (Acc)
  Python or numpy scalar                    -> a symbolic scalar (Exp);
                                               int is i64, float f64
  tuple of arrays of one rank               -> an array of tuples
                                               (struct of arrays)
  tuple of scalars                          -> a tuple of scalars
The function returns an array, a scalar (a 0-d result), or a tuple of
them (several results, nested as returned).  Called while another
function is traced, with symbolic arguments, a jit function is inlined
(functions are the meta level, as in Accelerate).
"""
import functools
import inspect
import threading

import numpy as np

from . import _lib, errors
from ._lib import lib
from ._trace import Acc, Trace, _Sym, _current, lift, lift_array
from .context import as_context
from .dtypes import ArrayType, from_dtype
from .program import Function

_ndarray = np.ndarray


def _native(dtype):
    return dtype if dtype.byteorder in "=|" else dtype.newbyteorder("=")


def _dtype_of(x):
    """The numpy dtype of a non-numpy array object (torch: torch.float32
    names numpy's float32), or None."""
    dt = getattr(x, "dtype", None)
    if dt is None:
        return None
    try:
        return np.dtype(dt)
    except TypeError:
        name = str(dt).rsplit(".", 1)[-1]
        try:
            return np.dtype("bool" if name == "bool" else name)
        except TypeError:
            return None


def _key(x):
    """What a signature records of one argument: ("a", dtype, ndim) for
    an array, ("s", dtype) for a scalar, ("t", keys) for a tuple."""
    if type(x) is _ndarray:
        return ("a", x.dtype, x.ndim)
    if isinstance(x, _ndarray):
        return ("a", x.dtype, x.ndim)
    if isinstance(x, (bool, np.bool_)):
        return ("s", np.dtype(np.bool_))
    if isinstance(x, int):
        return ("s", np.dtype(np.int64))
    if isinstance(x, float):
        return ("s", np.dtype(np.float64))
    if isinstance(x, np.generic):
        return ("s", x.dtype)
    if isinstance(x, tuple):
        return ("t", tuple(_key(v) for v in x))
    if isinstance(x, list):
        a = np.asarray(x)
        return ("a", a.dtype, a.ndim)
    dt = _dtype_of(x)
    nd = getattr(x, "ndim", None)
    if dt is not None and isinstance(nd, int):
        return ("a", dt, nd)
    return ("?", type(x).__name__)


def _elem_of(key, fail):
    """(element type, rank, scalar?) of an argument's key."""
    kind = key[0]
    if kind in ("a", "s"):
        s = from_dtype(_native(key[1]))
        if s is None:
            fail("a %s %s: accel arrays hold bool, integers, f32 or f64 "
                 "(convert it first)" % (key[1], "array" if kind == "a"
                                         else "scalar"))
        return s, (key[2] if kind == "a" else 0), kind == "s"
    if kind == "t":
        if not key[1]:
            fail("an empty tuple")
        parts = [_elem_of(k, fail) for k in key[1]]
        ranks = {p[1] for p in parts}
        scalars = {p[2] for p in parts}
        if len(ranks) != 1 or len(scalars) != 1:
            fail("a tuple whose parts have different ranks (a tuple "
                 "argument is an array of tuples: its arrays have one "
                 "shape; pass other arrays as separate arguments)")
        return tuple(p[0] for p in parts), ranks.pop(), scalars.pop()
    fail("a %s: expected arrays, scalars or tuples of them" % key[1])


class JitFunction:
    """A Python function compiled as an accel program for each signature
    of its arguments (see the module's comment)."""

    def __init__(self, fn, backend="auto", context=None):
        if not callable(fn):
            raise errors.InvalidArgumentError(
                "accel.jit needs a function, got %s" % type(fn).__name__,
                errors.ERR_INVALID_ARGUMENT)
        functools.update_wrapper(self, fn)
        self.fn = fn
        self._backend = backend
        self._context = context
        self._cache = {}
        self._lock = threading.RLock()
        try:
            self._sig = inspect.signature(fn)
            self._names = list(self._sig.parameters)
        except (TypeError, ValueError):
            self._sig, self._names = None, []

    def __repr__(self):
        return "<accel.jit %s (%d signatures compiled)>" % (
            self.__name__, len(self._cache))

    def __call__(self, *args, **kwargs):
        if kwargs or (self._sig is not None and
                      len(args) != len(self._names)):
            args = self._bind(args, kwargs)
        if _current() is not None and _symbolic(args):
            return self.fn(*args)  # inlined into the trace being built
        try:
            key = tuple(_key(a) for a in args)
            f = self._cache.get(key)
        except TypeError:  # an unhashable part: traced as it comes
            key, f = None, None
        if f is None:
            f = self._compile(key, args)
        return f(*args)

    def _bind(self, args, kwargs):
        if self._sig is None:
            if kwargs:
                raise errors.InvalidArgumentError(
                    "%s takes no keyword arguments" % self.__name__,
                    errors.ERR_INVALID_ARGUMENT)
            return args
        try:
            b = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise errors.InvalidArgumentError(
                "%s: %s" % (self.__name__, e),
                errors.ERR_INVALID_ARGUMENT) from None
        b.apply_defaults()
        return b.args

    def compiled(self, *args, **kwargs):
        """The accel.Function compiled for these arguments' signature
        (compiling it now if needed): .explain(), .signature, ..."""
        if kwargs or (self._sig is not None and
                      len(args) != len(self._names)):
            args = self._bind(args, kwargs)
        key = tuple(_key(a) for a in args)
        return self._cache.get(key) or self._compile(key, args)

    def explain(self, *args, text=False):
        """The plan of the program compiled for these arguments."""
        return self.compiled(*args).explain(text=text)

    @property
    def signatures(self):
        """The signatures compiled so far."""
        return list(self._cache)

    def _compile(self, key, args):
        with self._lock:
            f = self._cache.get(key) if key is not None else None
            if f is not None:
                return f
            if key is None:
                key = tuple(_key(a) for a in args)
            f = self._trace_and_compile(key)
            self._cache[key] = f
            return f

    def _trace_and_compile(self, key):
        ctx = as_context(self._backend, self._context)
        name = self.__name__
        names = [self._names[k] if k < len(self._names) else "arg%d" % k
                 for k in range(len(key))]
        t = Trace(ctx, name)
        try:
            with t:
                params = [self._declare(t, k, pos, names[pos])
                          for pos, k in enumerate(key)]
                out = self.fn(*params)
                nodes = []
                structure = _results(t, out, nodes)
            arr = (_lib.c_void_p * len(nodes))(*nodes)
            h = _lib.c_void_p()
            st = lib.acc_compile(ctx.handle, t.g, len(nodes), arr,
                                 _lib.ctypes.byref(h))
            if st:
                raise errors.make_error(st, "%s: %s" % (
                    name, errors.last_error()), function=name)
            input_names = names + ["use%d" % k for k in range(len(t.bound))]
            return Function(h.value, ctx, name, input_names,
                            structure if isinstance(structure, tuple)
                            else None, t.bound)
        finally:
            t.close()

    def _declare(self, t, key, pos, pname):
        def fail(what):
            raise errors.TypeMismatchError(
                "argument %d '%s' of %s: %s" % (pos + 1, pname,
                                                self.__name__, what),
                errors.ERR_TYPE, function=self.__name__, argument=pos + 1,
                name=pname)
        elem, rank, is_scalar = _elem_of(key, fail)
        node = t.input(elem, rank)
        if is_scalar:
            return t.wrap(t.node(lib.acc_the(t.g, node), "the"))
        return Acc(t, node, ArrayType(elem, rank))


def _symbolic(values):
    for v in values:
        if isinstance(v, _Sym):
            return True
        if isinstance(v, (tuple, list)) and _symbolic(v):
            return True
    return False


def _results(t, out, nodes):
    """Appends the result nodes of value `out`; returns its structure: an
    output number, or a tuple of structures (several results)."""
    if isinstance(out, tuple):
        return tuple(_results(t, v, nodes) for v in out)
    if isinstance(out, list) and _symbolic(out):
        raise errors.InvalidArgumentError(
            "%s returned a list: return several results as a tuple" % t.name,
            errors.ERR_INVALID_ARGUMENT)
    if out is None:
        raise errors.InvalidArgumentError(
            "%s returned None: an accel function returns arrays or values "
            "(or a tuple of them)" % t.name, errors.ERR_INVALID_ARGUMENT)
    if isinstance(out, Acc) or isinstance(out, (list, _ndarray)) or \
            hasattr(out, "__dlpack__"):
        nodes.append(lift_array(t, out, "the result"))
    else:
        value = lift(t, out, None, "the result")
        nodes.append(t.node(lib.acc_unit(t.g, value), "unit"))
    return len(nodes) - 1


def jit(fn=None, *, backend="auto", context=None):
    """Compiles a Python function over symbolic arrays as an accel program
    (once per signature of its arguments).  @accel.jit, or
    @accel.jit(backend="cpu") / (context=ctx)."""
    if fn is None:
        return lambda f: JitFunction(f, backend, context)
    return JitFunction(fn, backend, context)

