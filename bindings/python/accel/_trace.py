"""_trace.py -- the array language embedded in Python: symbolic values
and the graph they are built in.

While an accel.jit function is traced, its arguments are symbolic: an
array argument is an Acc (an array term), a scalar argument an Exp (a
scalar term).  Every operation on them (accel.map, +, accel.cond, ...)
adds a node to one accel graph (acc_graph) through the C builder and
returns a new symbolic value; nothing is computed.  A Python object is
one node, so using one object twice is sharing, exactly as node identity
is in the C builder.  Scalar functions (the f of map, fold, ...) are
Python functions called once with symbolic parameters; what they return
is the function's body.

Values are shown to Python code as:
  Exp    a scalar term (f32, i64, bool, ...), with Python's operators;
  Index  an index or shape of rank r >= 2 (i, j = ix; ix[0]); an index of
         rank 1 is given to functions as its one i64 component;
  tuple  a Python tuple of values, for tuple types (nested);
  Acc    an array term; a tuple of arrays is a Python tuple of Acc.
Python values are lifted where a value is expected: numbers become
constants of the type the context asks for (an int becomes any integer
or float type, a float any float type; alone, int is i64 and float f64),
numpy scalars keep their type, tuples become tuples or indices, numpy
arrays become program inputs (accel.use).

Builder errors are raised at once, at the Python line that made them,
as AccelError with accel's message (which names the operation).
"""
import builtins as _b
import inspect
import threading

import numpy as np

from . import _lib, errors
from ._lib import lib
from .dtypes import (ArrayType, Scalar, Shape, bool_, f64, i64, scalar,
                     type_ptr, decode, from_dtype, elem_name)

_tls = threading.local()
_H = _lib.c_void_p


def _current():
    stack = getattr(_tls, "stack", None)
    return stack[-1] if stack else None


class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "accel." + self.name


# `ignore`: the dropped target of permute; `All`: a kept dimension of
# replicate and slice specifications.
IGNORE = _Sentinel("ignore")
ALL = _Sentinel("All")


class Trace:
    """One graph being built: the function being traced, its inputs, the
    arrays it captured with accel.use."""

    def __init__(self, context, name):
        self.context = context
        self.name = name
        self.types = context.types
        g = _H()
        errors.check(lib.acc_graph_create(context.handle, _lib.ctypes.byref(g)),
                     "acc_graph_create")
        self.g = g.value
        self.n_inputs = 0
        self.bound = []  # (input number, array) captured with use()
        self.used = {}   # id(array) -> Acc, so one array is one input

    def close(self):
        if self.g:
            lib.acc_graph_free(self.g)
            self.g = None

    def __enter__(self):
        stack = getattr(_tls, "stack", None)
        if stack is None:
            stack = _tls.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _tls.stack.pop()
        return False

    # --- nodes ----------------------------------------------------------
    def node(self, ptr, what=None):
        """ptr, or the graph's error raised when the builder refused."""
        if ptr:
            return ptr
        if not self.g:
            raise errors.InvalidArgumentError(
                "%s: the trace of %s is over: symbolic values live only "
                "while their function is traced" % (what, self.name),
                errors.ERR_INVALID_ARGUMENT)
        status = lib.acc_graph_status(self.g) or errors.ERR_INTERNAL
        msg = lib.acc_graph_last_error(self.g).decode("utf-8", "replace")
        raise errors.make_error(status, "%s: %s" % (self.name, msg))

    def type_of(self, ptr):
        return decode(lib.acc_node_type(ptr), self.types)

    def wrap(self, ptr):
        """The Python form of node ptr (see the module's comment)."""
        t = self.type_of(ptr)
        if isinstance(t, Scalar):
            return Exp(self, ptr, t)
        if isinstance(t, Shape):
            return Index(self, ptr, t.rank)
        if isinstance(t, ArrayType):
            return Acc(self, ptr, t)
        return tuple(self.wrap(self.node(lib.acc_get(self.g, ptr, i), "get"))
                     for i in range(len(t)))

    def tuple_node(self, ptrs):
        arr = (_H * _b.max(1, len(ptrs)))(*ptrs)
        return self.node(lib.acc_tuple(self.g, len(ptrs), arr), "tuple")

    def index_node(self, ptrs):
        arr = (_H * _b.max(1, len(ptrs)))(*ptrs)
        return self.node(lib.acc_index(self.g, len(ptrs), arr), "index")

    def const(self, value, s):
        """A constant of scalar type s (value already checked to fit)."""
        g = self.g
        if s is bool_:
            p = lib.acc_const_bool(g, 1 if value else 0)
        elif s.is_float:
            p = lib.acc_const_f64(g, s.code, float(value))
        elif value < 0:
            p = lib.acc_const_i64(g, s.code, int(value))
        else:
            p = lib.acc_const_u64(g, s.code, int(value))
        return self.node(p, "constant")

    def input(self, elem, rank):
        """A new program input of element type elem and rank."""
        p = self.node(lib.acc_input(self.g, type_ptr(self.context, elem),
                                    rank), "input")
        self.n_inputs += 1
        return p

    def use(self, array):
        """array (numpy, or anything with __dlpack__ or __array__) as an
        input of the program, given by the compiled function at every
        call: what accel.use and arrays captured in a function become."""
        acc = self.used.get(id(array))
        if acc is not None and acc[1] is array:
            return acc[0]
        a = array
        if not isinstance(a, np.ndarray):
            a = np.from_dlpack(a) if hasattr(a, "__dlpack__") else \
                np.asarray(a)
        s = from_dtype(a.dtype.newbyteorder("=")) if a.dtype.byteorder not in \
            "=|" else from_dtype(a.dtype)
        if s is None:
            raise errors.TypeMismatchError(
                "%s: accel.use of a %s array: accel arrays hold bool, "
                "integers, f32 or f64" % (self.name, a.dtype),
                errors.ERR_TYPE)
        node = self.input(s, a.ndim)
        self.bound.append((self.n_inputs - 1, a))
        acc = Acc(self, node, ArrayType(s, a.ndim))
        self.used[id(array)] = (acc, array)
        return acc


def trace_of(*values):
    """The trace of the first symbolic value among values (searched in
    tuples too), else the trace being built on this thread."""
    for v in values:
        if isinstance(v, _Sym):
            return v._t
        if isinstance(v, (tuple, list)):
            t = trace_of(*v)
            if t is not None:
                return t
    return _current()


def need_trace(what, *values):
    t = trace_of(*values)
    if t is None:
        raise errors.InvalidArgumentError(
            "accel.%s builds a program: call it inside a function decorated "
            "with @accel.jit (while it is traced)" % what,
            errors.ERR_INVALID_ARGUMENT)
    if not t.g:
        raise errors.InvalidArgumentError(
            "accel.%s: a symbolic value of %s was kept after its function "
            "was traced; symbolic values live only during the trace" % (
                what, t.name), errors.ERR_INVALID_ARGUMENT)
    return t


# --- lifting Python values to nodes ---------------------------------------

def _fail_type(t, what, message):
    raise errors.TypeMismatchError("%s: %s: %s" % (t.name, what, message),
                                   errors.ERR_TYPE)


def _int_fits(value, s):
    if s.is_float:
        return True
    info = np.iinfo(s.dtype)
    return info.min <= value <= info.max


def lift(t, v, want=None, what="value"):
    """The node of value v as a scalar term (a value of type `want`, when
    given: a Scalar, a Shape or a tuple of them)."""
    if isinstance(v, _Sym):
        if v._t is not t:
            _foreign_trace(t, v, what)
        if isinstance(v, Acc):
            _fail_type(t, what, "an array (%s) where a scalar value is "
                       "expected; read it with xs[i] or accel.the" % v.type)
        if isinstance(want, Shape) and isinstance(v, Exp) and \
                want.rank == 1 and v.type is i64:
            return t.index_node([v._n])  # xs ! i on vectors
        if want is not None and isinstance(want, (Scalar, Shape)) and \
                v.type != want:
            _fail_type(t, what, "expected %s, got %s%s" % (
                elem_name(want), elem_name(v.type), _convert_hint(want)))
        return v._n
    if isinstance(want, Shape):
        return _lift_index(t, v, want.rank, what)
    if isinstance(v, (bool, np.bool_)):
        if want is not None and want is not bool_:
            _fail_type(t, what, "a bool where %s is expected" %
                       elem_name(want))
        return t.const(bool(v), bool_)
    if isinstance(v, int):
        s = want if want is not None else i64
        if not isinstance(s, Scalar) or s is bool_:
            _fail_type(t, what, "the integer %d where %s is expected" % (
                v, elem_name(s)))
        if not _int_fits(v, s):
            _fail_type(t, what, "%d does not fit %s" % (v, s))
        return t.const(v, s)
    if isinstance(v, float):
        s = want if want is not None else f64
        if not isinstance(s, Scalar) or not s.is_float:
            _fail_type(t, what, "the float %r where %s is expected%s" % (
                v, elem_name(s), "; convert explicitly, e.g. accel.%s(x)" %
                s if isinstance(s, Scalar) else ""))
        return t.const(v, s)
    if isinstance(v, np.generic):
        s = from_dtype(v.dtype)
        if s is None:
            _fail_type(t, what, "a numpy %s is not an accel scalar" % v.dtype)
        if want is not None and want != s:
            _fail_type(t, what, "expected %s, got a numpy %s" % (
                elem_name(want), s))
        return t.const(v.item(), s)
    if isinstance(v, tuple):
        if isinstance(want, tuple):
            if len(want) != len(v):
                _fail_type(t, what, "expected a %d-tuple %s, got a %d-tuple"
                           % (len(want), elem_name(want), len(v)))
            return t.tuple_node([lift(t, x, w, what)
                                 for x, w in _b.zip(v, want)])
        if want is not None:
            _fail_type(t, what, "a tuple where %s is expected" %
                       elem_name(want))
        return t.tuple_node([lift(t, x, None, what) for x in v])
    if v is IGNORE:
        _fail_type(t, what, "accel.ignore is a permute target: it needs an "
                   "index of known rank (return it where permute expects "
                   "a target, or with accel.cond beside an index)")
    if v is ALL:
        _fail_type(t, what, "accel.All belongs in replicate and slice "
                   "specifications")
    if isinstance(v, list) or hasattr(v, "__array__") or \
            hasattr(v, "__dlpack__"):
        _fail_type(t, what, "an array (%s) where a scalar value is expected"
                   % type(v).__name__)
    _fail_type(t, what, "cannot use a %s in an accel program" %
               type(v).__name__)


def _convert_hint(want):
    return "; convert with accel.%s(x)" % want if isinstance(want, Scalar) \
        else ""


def _foreign_trace(t, v, what):
    raise errors.InvalidArgumentError(
        "%s: %s: a symbolic value of %s used while tracing %s (values "
        "belong to the function that made them)" % (
            t.name, what, v._t.name, t.name), errors.ERR_INVALID_ARGUMENT)


def _lift_index(t, v, rank, what):
    if v is IGNORE:
        return t.node(lib.acc_ignore(t.g, rank), "ignore")
    if isinstance(v, Index):
        if v._t is not t:
            _foreign_trace(t, v, what)
        if v.rank != rank:
            _fail_type(t, what, "expected an index of rank %d, got rank %d"
                       % (rank, v.rank))
        return v._n
    if not isinstance(v, (tuple, list)):
        v = (v,)
    if len(v) != rank:
        _fail_type(t, what, "expected an index of rank %d, got %d "
                   "components" % (rank, len(v)))
    return t.index_node([lift(t, c, i64, what) for c in v])


def shape_node(t, sh, what):
    """The node of a shape argument: an Index, a tuple of extents, or one
    extent."""
    if isinstance(sh, Index):
        return lift(t, sh, Shape(sh.rank), what)
    if not isinstance(sh, (tuple, list)):
        sh = (sh,)
    return _lift_index(t, tuple(sh), len(sh), what)


def lift_array(t, v, what="array"):
    """The node of an array term: an Acc, a tuple of them, or an array
    (numpy, DLPack) captured as a program input."""
    if isinstance(v, Acc):
        if v._t is not t:
            _foreign_trace(t, v, what)
        return v._n
    if isinstance(v, tuple):
        return t.tuple_node([lift_array(t, x, what) for x in v])
    if isinstance(v, (Exp, Index)):
        _fail_type(t, what, "a scalar value where an array is expected "
                   "(accel.unit(x) makes a Scalar array of it)")
    if isinstance(v, np.ndarray) or hasattr(v, "__dlpack__") or \
            hasattr(v, "__array__"):
        return t.use(v)._n
    if isinstance(v, list):
        return t.use(np.asarray(v))._n
    _fail_type(t, what, "expected an array, got a %s" % type(v).__name__)


# --- Python functions as lambdas ---------------------------------------

def _arity(f):
    """(required, maximum) positional parameters of f; maximum None for
    *args; (0, None) when Python cannot tell."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return 0, None
    req, most = 0, 0
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            most += 1
            if p.default is p.empty:
                req += 1
        elif p.kind == p.VAR_POSITIONAL:
            most = None
    return req, most


def _accepts(arity, n):
    req, most = arity
    return req <= n and (most is None or n <= most)


def _present(t, ptr):
    """A parameter as functions see it: an index of rank 1 is its i64."""
    v = t.wrap(ptr)
    if isinstance(v, Index) and v.rank == 1:
        return v[0]
    return v


def call_fn(f, values, what):
    """f applied to values; one tuple (or index) value is spread over f's
    parameters when f takes that many and not one."""
    if not callable(f):
        raise errors.InvalidArgumentError(
            "%s: expected a function, got %s" % (what, type(f).__name__),
            errors.ERR_INVALID_ARGUMENT)
    if len(values) == 1:
        v = values[0]
        parts = tuple(v) if isinstance(v, (tuple, Index)) else None
        if parts is not None and len(parts) != 1:
            arity = _arity(f)
            if not _accepts(arity, 1) and _accepts(arity, len(parts)):
                return f(*parts)
    arity = _arity(f)
    if not _accepts(arity, len(values)):
        req, most = arity
        takes = "%d" % req if req == most else (
            "%d or more" % req if most is None else "%d to %d" % (req, most))
        raise errors.InvalidArgumentError(
            "%s: the function takes %s parameter%s, and is given %d (%s)" % (
                what, takes, "" if takes == "1" else "s", len(values),
                ", ".join(_describe_value(v) for v in values)),
            errors.ERR_INVALID_ARGUMENT)
    return f(*values)


def _describe_value(v):
    if isinstance(v, tuple):
        return "a %d-tuple" % len(v)
    t = getattr(v, "type", None)
    return elem_name(t) if t is not None else type(v).__name__


def fun(t, f, param_types, want=None, what="function"):
    """A scalar lambda node of f over parameters of the C types
    param_types; its result is lifted as a value of type `want`."""
    params = [t.node(lib.acc_param(t.g, p), "param") for p in param_types]
    body = call_fn(f, [_present(t, p) for p in params], what)
    body_node = lift(t, body, want, "the result of the function of " + what)
    arr = (_H * len(params))(*params)
    return t.node(lib.acc_lambda(t.g, len(params), arr, body_node), what)


def afun(t, f, param_type, want=None, what="function", scalar_bool=False):
    """An array lambda node of f over one parameter of C type param_type
    (an array or a tuple of arrays), for awhile and foreign fallbacks.
    scalar_bool: a scalar bool result is made a Scalar array (unit)."""
    param = t.node(lib.acc_param(t.g, param_type), "param")
    body = call_fn(f, [t.wrap(param)], what)
    if scalar_bool and isinstance(body, (Exp, bool)):
        body = Acc(t, t.node(lib.acc_unit(t.g, lift(t, body, bool_, what)),
                             "unit"), ArrayType(bool_, 0))
    body_node = lift_array(t, body, "the result of the function of " + what)
    arr = (_H * 1)(param)
    return t.node(lib.acc_lambda(t.g, 1, arr, body_node), what)


def node_type_ptr(ptr):
    return lib.acc_node_type(ptr)


def elem_ptr(acc):
    """The C element type of an array term."""
    return lib.acc_type_get_elem(lib.acc_node_type(acc._n))


# --- symbolic values -------------------------------------------------------

_NO_TRUTH = ("a symbolic value has no truth value while its function is "
             "traced: use accel.cond(c, a, b) for if/else, "
             "accel.while_loop(cond, body, init) for while, and & | ~ "
             "(accel.land, accel.lor, accel.not_) for and, or, not")


class _Sym:
    """A node of a graph being traced."""
    __slots__ = ("_t", "_n", "__weakref__")
    # numpy defers to our operators (np.float32(2) * x is x.__rmul__).
    __array_ufunc__ = None

    def __bool__(self):
        raise errors.InvalidArgumentError(_NO_TRUTH,
                                          errors.ERR_INVALID_ARGUMENT)

    def __index__(self):
        raise errors.InvalidArgumentError(
            "a symbolic value is not a Python int while its function is "
            "traced (accel.i64(x) converts it in the program)",
            errors.ERR_INVALID_ARGUMENT)

    __hash__ = object.__hash__


def _type_of_operand(x):
    return x.type if isinstance(x, Exp) else None


def _binary(op, a, b, name):
    """acc_binop op of a and b (an Exp and a Python number, or two Exps)."""
    t = trace_of(a, b)
    ta, tb = _type_of_operand(a), _type_of_operand(b)
    want = ta or tb
    na = lift(t, a, want if ta is None else None, name)
    nb = lift(t, b, want if tb is None else None, name)
    if ta is not None and tb is not None and ta is not tb and \
            op not in (_SHIFTL, _SHIFTR):
        _fail_type(t, name, "the operands are %s and %s; convert one (e.g. "
                   "accel.%s(x))" % (ta, tb, ta))
    return Exp(t, t.node(lib.acc_binop(t.g, op, na, nb), name),
               bool_ if op in _COMPARISONS else want)


def _unary(op, a, name, result=None):
    t = trace_of(a)
    na = lift(t, a, None, name)
    return Exp(t, t.node(lib.acc_unop(t.g, op, na), name),
               result or t.type_of(na))


# acc_primop numbers (accel.h; fixed).
(_ADD, _SUB, _MUL, _NEG, _ABS, _SIGNUM, _MIN, _MAX) = (1, 2, 3, 4, 5, 6, 7, 8)
(_FDIV, _QUOT, _REM, _DIV, _MOD) = (10, 11, 12, 13, 14)
(_BAND, _BOR, _BXOR, _COMPLEMENT, _SHIFTL, _SHIFTR, _POPCOUNT, _CLZ) = \
    (20, 21, 22, 23, 24, 25, 26, 27)
(_EQ, _NE, _LT, _LE, _GT, _GE) = (30, 31, 32, 33, 34, 35)
(_LAND, _LOR, _NOT) = (40, 41, 42)
_COMPARISONS = {_EQ, _NE, _LT, _LE, _GT, _GE}
UNARY_FLOAT = {"sqrt": 50, "exp": 51, "log": 52, "sin": 53, "cos": 54,
               "tan": 55, "asin": 56, "acos": 57, "atan": 58, "sinh": 59,
               "cosh": 60, "tanh": 61}
ATAN2, POW, LOGBASE, ISNAN, ISINF = 62, 63, 64, 65, 66
ROUNDINGS = {"truncate": 70, "round": 71, "floor": 72, "ceiling": 73}


def _both_types(a, b):
    return [x.type for x in (a, b) if isinstance(x, Exp)]


def _is_float_op(a, b):
    """Whether a binary operator sees floats (from its symbolic side, or
    a Python float beside it)."""
    types = _both_types(a, b)
    if types:
        return types[0].is_float
    return isinstance(a, float) or isinstance(b, float)


def _is_bool_op(a, b):
    types = _both_types(a, b)
    return bool(types) and types[0] is bool_


class Exp(_Sym):
    """A scalar term of a traced function.  Arithmetic, comparison and
    bitwise operators build nodes; / is float division, // and % floor
    (integers, as in Python), ** is float power; & | ^ ~ are logical on
    bools (& and | short-circuit) and bitwise on integers."""
    __slots__ = ("type",)

    def __init__(self, t, node, typ):
        self._t = t
        self._n = node
        self.type = typ

    @property
    def dtype(self):
        return self.type.dtype

    def __repr__(self):
        return "<accel %s value of %s>" % (self.type, self._t.name)

    def __add__(self, o): return _binary(_ADD, self, o, "+")
    def __radd__(self, o): return _binary(_ADD, o, self, "+")
    def __sub__(self, o): return _binary(_SUB, self, o, "-")
    def __rsub__(self, o): return _binary(_SUB, o, self, "-")
    def __mul__(self, o): return _binary(_MUL, self, o, "*")
    def __rmul__(self, o): return _binary(_MUL, o, self, "*")

    def __truediv__(self, o): return _fdiv(self, o)
    def __rtruediv__(self, o): return _fdiv(o, self)
    def __floordiv__(self, o): return _intop(_DIV, self, o, "//")
    def __rfloordiv__(self, o): return _intop(_DIV, o, self, "//")
    def __mod__(self, o): return _intop(_MOD, self, o, "%")
    def __rmod__(self, o): return _intop(_MOD, o, self, "%")
    def __pow__(self, o): return _pow(self, o)
    def __rpow__(self, o): return _pow(o, self)

    def __neg__(self): return _unary(_NEG, self, "negate")
    def __pos__(self): return self
    def __abs__(self): return _unary(_ABS, self, "abs")

    def __invert__(self):
        if self.type is bool_:
            return _unary(_NOT, self, "not")
        return _unary(_COMPLEMENT, self, "complement")

    def __and__(self, o): return _logic(_LAND, _BAND, self, o, "&")
    def __rand__(self, o): return _logic(_LAND, _BAND, o, self, "&")
    def __or__(self, o): return _logic(_LOR, _BOR, self, o, "|")
    def __ror__(self, o): return _logic(_LOR, _BOR, o, self, "|")
    def __xor__(self, o): return _logic(_NE, _BXOR, self, o, "^")
    def __rxor__(self, o): return _logic(_NE, _BXOR, o, self, "^")
    def __lshift__(self, o): return _binary(_SHIFTL, self, o, "<<")
    def __rlshift__(self, o): return _binary(_SHIFTL, o, self, "<<")
    def __rshift__(self, o): return _binary(_SHIFTR, self, o, ">>")
    def __rrshift__(self, o): return _binary(_SHIFTR, o, self, ">>")

    def __eq__(self, o): return _binary(_EQ, self, o, "==")
    def __ne__(self, o): return _binary(_NE, self, o, "!=")
    def __lt__(self, o): return _binary(_LT, self, o, "<")
    def __le__(self, o): return _binary(_LE, self, o, "<=")
    def __gt__(self, o): return _binary(_GT, self, o, ">")
    def __ge__(self, o): return _binary(_GE, self, o, ">=")

    __hash__ = _Sym.__hash__

    def __float__(self):
        raise errors.InvalidArgumentError(
            "a symbolic value is not a Python float while its function is "
            "traced (accel.f64(x) converts it in the program)",
            errors.ERR_INVALID_ARGUMENT)

    __int__ = _Sym.__index__


def _fdiv(a, b):
    if not _is_float_op(a, b):
        t = trace_of(a, b)
        _fail_type(t, "/", "/ divides floats; for integers use // (floor, "
                   "as Python) or accel.quot (toward zero), or convert "
                   "first (accel.f64(x) / y)")
    return _binary(_FDIV, a, b, "/")


def _intop(op, a, b, name):
    if _is_float_op(a, b):
        t = trace_of(a, b)
        _fail_type(t, name, "%s works on integers; for floats use "
                   "accel.floor(a / b) or accel.truncate" % name)
    return _binary(op, a, b, name)


def _pow(a, b):
    if not _is_float_op(a, b):
        t = trace_of(a, b)
        _fail_type(t, "**", "** is float power (x ** y of f32 or f64); "
                   "convert integers first, or multiply")
    return _binary(POW, a, b, "**")


def _logic(bool_op, int_op, a, b, name):
    if _is_bool_op(a, b):
        return _binary(bool_op, a, b, name)
    return _binary(int_op, a, b, name)


class Index(_Sym):
    """An index or shape of rank r: len(ix) == r, ix[k] is component k
    (an i64 Exp; 0 is the outermost), i, j = ix unpacks it."""
    __slots__ = ("rank",)

    def __init__(self, t, node, rank):
        self._t = t
        self._n = node
        self.rank = rank

    @property
    def type(self):
        return Shape(self.rank)

    def __repr__(self):
        return "<accel index of rank %d of %s>" % (self.rank, self._t.name)

    def __len__(self):
        return self.rank

    def __getitem__(self, k):
        if isinstance(k, _b.slice):
            return tuple(self[i] for i in range(self.rank)[k])
        k = int(k)
        if k < 0:
            k += self.rank
        if not 0 <= k < self.rank:
            raise IndexError("component %d of an index of rank %d" % (
                k, self.rank))
        t = self._t
        return Exp(t, t.node(lib.acc_get(t.g, self._n, k), "get"), i64)

    def __iter__(self):
        return (self[k] for k in range(self.rank))


class Acc(_Sym):
    """An array term of a traced function: its element type and rank are
    known (xs.elem, xs.rank, xs.type); xs.shape is its shape (an Index),
    xs.size its number of elements; xs[ix] reads element ix from scalar
    code (xs[i] on vectors), xs.linear(k) the k-th in row-major order."""
    __slots__ = ("type",)

    def __init__(self, t, node, typ):
        self._t = t
        self._n = node
        self.type = typ

    def __repr__(self):
        return "<accel %s of %s>" % (self.type, self._t.name)

    @property
    def elem(self):
        return self.type.elem

    @property
    def rank(self):
        return self.type.rank

    @property
    def ndim(self):
        return self.type.rank

    @property
    def shape(self):
        t = self._t
        return Index(t, t.node(lib.acc_shape(t.g, self._n), "shape"),
                     self.rank)

    @property
    def size(self):
        t = self._t
        return Exp(t, t.node(lib.acc_size(t.g, self._n), "size"), i64)

    def __getitem__(self, ix):
        t = self._t
        if isinstance(ix, tuple) and not ix and self.rank == 0:
            node = lib.acc_the(t.g, self._n)
        else:
            node = lib.acc_read(t.g, self._n, lift(t, ix, Shape(self.rank),
                                                   "xs[ix]"))
        return t.wrap(t.node(node, "read (!)"))

    def linear(self, k):
        """Element k in row-major order (xs !! k)."""
        t = self._t
        return t.wrap(t.node(lib.acc_read_linear(
            t.g, self._n, lift(t, k, i64, "linear read (!!)")),
            "linear read (!!)"))

    def __iter__(self):
        raise errors.InvalidArgumentError(
            "a symbolic array cannot be iterated while its function is "
            "traced: use accel.map, accel.fold, ... on it",
            errors.ERR_INVALID_ARGUMENT)

    def __len__(self):
        raise errors.InvalidArgumentError(
            "the length of a symbolic array is not known while its function "
            "is traced: use xs.shape or xs.size (symbolic)",
            errors.ERR_INVALID_ARGUMENT)


def convert(x, s):
    """accel.f32(x) and friends: a conversion of a symbolic value (or of
    every element of a symbolic array), else a numpy scalar of type s."""
    s = scalar(s)
    if isinstance(x, Acc):
        from . import lang
        return lang.map(lambda v: convert(v, s), x)
    if isinstance(x, Exp):
        if x.type is s:
            return x
        t = x._t
        return Exp(t, t.node(lib.acc_convert(t.g, x._n, s.code),
                             "convert to %s" % s), s)
    if isinstance(x, _Sym):
        raise errors.TypeMismatchError(
            "accel.%s: cannot convert %r" % (s, x), errors.ERR_TYPE)
    if isinstance(x, (bool, int, float, np.generic)):
        if s.is_integer and isinstance(x, int) and not isinstance(x, bool) \
                and not _int_fits(x, s):
            raise errors.TypeMismatchError("%d does not fit %s" % (x, s),
                                           errors.ERR_TYPE)
        return s.dtype.type(x)
    raise errors.TypeMismatchError(
        "accel.%s: cannot convert a %s" % (s, type(x).__name__),
        errors.ERR_TYPE)
