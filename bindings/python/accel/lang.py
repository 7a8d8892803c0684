"""lang.py -- the operations of the array language (LANGUAGE.md sections
2 and 3, and the standard library), as Python functions over the symbolic
values of a traced accel.jit function (_trace.py).

Names follow the C builder (accel.h without its acc_ prefix): map,
zipwith, fold, fold_seg, scanl, scanl_prime (scanl'), permute,
permute_pairs (permute'), stencil, expand, foreign, ...  Array arguments
come last, as in LANGUAGE.md.  Function arguments are Python functions
or lambdas, called once while the program is traced.  A function whose
parameter is a tuple (or an index of rank >= 2) may take its components
as separate parameters (lambda price, strike, years: ...); an index of
rank 1 is given as its i64 component.

Every builtin Python name this module shadows (map, zip, filter, all,
any, min, max, round, slice, sum) is reached through `_b`.
"""
import builtins as _b

from . import errors
from ._lib import lib, c_int32
from ._trace import (ALL, IGNORE, ROUNDINGS, UNARY_FLOAT, ATAN2, LOGBASE,
                     ISNAN, ISINF, Acc, Exp, Index, _H, _binary, _unary,
                     afun, fun, lift, lift_array, need_trace, shape_node,
                     convert)
from ._trace import (_ABS, _SIGNUM, _NEG, _MIN, _MAX, _QUOT, _REM, _DIV,
                     _MOD, _BXOR, _COMPLEMENT, _SHIFTL, _SHIFTR, _POPCOUNT,
                     _CLZ, _LAND, _LOR, _NOT, _intop)
from .dtypes import Shape, bool_, i64, scalar, type_ptr

ignore = IGNORE
All = ALL


def _acc(t, node):
    """The Python form of an array-valued node (an Acc, or a tuple of
    them for a tuple of arrays)."""
    return t.wrap(node)


def _elem(t, node):
    return lib.acc_type_get_elem(lib.acc_node_type(node))


def _elem_py(t, node):
    return t.type_of(node).elem


def _rank(t, node):
    return t.type_of(node).rank


# --- scalar language (LANGUAGE.md section 2) --------------------------------

def cond(c, a, b):
    """if c then a else b: scalars (only the chosen branch is evaluated),
    or arrays (acond: only the chosen array computation runs)."""
    t = need_trace("cond", c, a, b)
    if _is_array(a) or _is_array(b):
        return acond(c, a, b)
    nc = lift(t, c, bool_, "cond: the condition")
    if a is IGNORE or b is IGNORE:
        other = b if a is IGNORE else a
        rank = other.rank if isinstance(other, Index) else (
            len(other) if isinstance(other, (tuple, list)) else 1)
        want = Shape(rank)
        na, nb = lift(t, a, want, "cond"), lift(t, b, want, "cond")
    else:
        ta = _value_type(a)
        tb = _value_type(b)
        na = lift(t, a, tb if ta is None else None, "cond: the then branch")
        want = t.type_of(na)
        nb = lift(t, b, want if tb is None else None, "cond: the else branch")
    return t.wrap(t.node(lib.acc_cond(t.g, nc, na, nb), "cond"))


def _is_array(v):
    if isinstance(v, Acc):
        return True
    return isinstance(v, tuple) and _b.any(_is_array(x) for x in v)


def _value_type(v):
    """The type of a symbolic value (tuples: when every part has one)."""
    if isinstance(v, (Exp, Index)):
        return v.type
    if isinstance(v, tuple) and v:
        parts = [_value_type(x) for x in v]
        return None if None in parts else tuple(parts)
    return None


def while_loop(cond_fn, body, init):
    """Scalar while: starting from init, apply body while cond_fn holds
    (tested first).  With arrays (init an array or tuple of arrays) it is
    awhile.  Python literals in init get their default types (int: i64,
    float: f64): give typed values (accel.f32(0.0), np.int32(0)) where the
    loop needs others."""
    t = need_trace("while_loop", init)
    if _is_array(init):
        return awhile(cond_fn, body, init)
    ni = lift(t, init, None, "while_loop: the initial value")
    tp = lib.acc_node_type(ni)
    state = t.type_of(ni)
    c = fun(t, cond_fn, [tp], bool_, "while_loop (condition)")
    f = fun(t, body, [tp], state, "while_loop (body)")
    return t.wrap(t.node(lib.acc_while(t.g, c, f, ni), "while"))


def _unary_fn(name, op):
    def f(x):
        if isinstance(x, Acc):
            return map(f, x)
        need_trace(name, x)
        return _unary(op, x, name)
    f.__name__ = name
    f.__doc__ = "%s x (element-wise on a symbolic array)." % name
    return f


def _binary_fn(name, op):
    def f(x, y):
        need_trace(name, x, y)
        return _binary(op, x, y, name)
    f.__name__ = name
    f.__doc__ = "%s x y." % name
    return f


sqrt, exp, log, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh = [
    _unary_fn(n, UNARY_FLOAT[n]) for n in (
        "sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan",
        "sinh", "cosh", "tanh")]
negate = _unary_fn("negate", _NEG)
signum = _unary_fn("signum", _SIGNUM)
complement = _unary_fn("complement", _COMPLEMENT)
atan2 = _binary_fn("atan2", ATAN2)
log_base = _binary_fn("log_base", LOGBASE)
min = _binary_fn("min", _MIN)
max = _binary_fn("max", _MAX)
xor = _binary_fn("xor", _BXOR)
shift_left = _binary_fn("shift_left", _SHIFTL)
shift_right = _binary_fn("shift_right", _SHIFTR)


def abs(x):
    """abs x (Python's abs works on symbolic values too)."""
    if isinstance(x, Acc):
        return map(abs, x)
    need_trace("abs", x)
    return _unary(_ABS, x, "abs")


def quot(x, y):
    """Integer division truncating toward zero."""
    need_trace("quot", x, y)
    return _intop(_QUOT, x, y, "quot")


def rem(x, y):
    """Remainder of quot: it has the dividend's sign."""
    need_trace("rem", x, y)
    return _intop(_REM, x, y, "rem")


def div(x, y):
    """Integer division flooring (x // y)."""
    need_trace("div", x, y)
    return _intop(_DIV, x, y, "div")


def mod(x, y):
    """Remainder of div: it has the divisor's sign (x % y)."""
    need_trace("mod", x, y)
    return _intop(_MOD, x, y, "mod")


def popcount(x):
    need_trace("popcount", x)
    return _unary(_POPCOUNT, x, "popCount", i64)


def count_leading_zeros(x):
    need_trace("count_leading_zeros", x)
    return _unary(_CLZ, x, "countLeadingZeros", i64)


def is_nan(x):
    need_trace("is_nan", x)
    return _unary(ISNAN, x, "isNaN", bool_)


def is_infinite(x):
    need_trace("is_infinite", x)
    return _unary(ISINF, x, "isInfinite", bool_)


def land(x, y):
    """x && y (y is evaluated only when x holds)."""
    need_trace("land", x, y)
    return _binary(_LAND, x, y, "&&")


def lor(x, y):
    """x || y (y is evaluated only when x does not hold)."""
    need_trace("lor", x, y)
    return _binary(_LOR, x, y, "||")


def not_(x):
    need_trace("not_", x)
    return _unary(_NOT, x, "not")


def _rounding(name):
    op = ROUNDINGS[name]

    def f(x, to=i64):
        if isinstance(x, Acc):
            return map(lambda v: f(v, to), x)
        t = need_trace(name, x)
        s = scalar(to)
        n = lift(t, x, None, name)
        return Exp(t, t.node(lib.acc_round_to(t.g, op, n, s.code), name), s)
    f.__name__ = name
    f.__doc__ = ("%s of a float to integer type `to` (default i64); NaN "
                 "gives 0, values beyond the range saturate." % name)
    return f


truncate = _rounding("truncate")
round = _rounding("round")
floor = _rounding("floor")
ceiling = _rounding("ceiling")


def from_integral(x, to=i64):
    """An integer converted to numeric type `to`."""
    return convert(x, to)


def to_floating(x, to="f64"):
    """A number converted to float type `to` (default f64)."""
    return convert(x, to)


def even(x):
    """x is even (integers)."""
    t = need_trace("even", x)
    return t.wrap(t.node(lib.acc_even(t.g, lift(t, x, None, "even")),
                         "even"))


def odd(x):
    t = need_trace("odd", x)
    return t.wrap(t.node(lib.acc_odd(t.g, lift(t, x, None, "odd")), "odd"))


def index(*components):
    """An index or shape [c0, ..., c(n-1)] of i64 values (index(i, j))."""
    t = need_trace("index", *components)
    return t.wrap(t.node(t.index_node([lift(t, c, i64, "index")
                                       for c in components]), "index"))


def foreign_exp(name, fallback, arg):
    """foreignExp name fallback arg: a scalar foreign function (a C
    function registered under `name`), else fallback(arg)."""
    t = need_trace("foreign_exp", arg)
    na = lift(t, arg, None, "foreign_exp: the argument")
    f = fun(t, fallback, [lib.acc_node_type(na)], None,
            "foreign_exp (fallback)")
    return t.wrap(t.node(lib.acc_foreign_exp(t.g, name.encode(), f, na),
                         "foreignExp"))


# --- array access ---------------------------------------------------------

def use(array):
    """A numpy array (or a DLPack/array-like object) in the program: it
    becomes an input that the compiled function passes at every call,
    without a copy.  Arrays given where an array is expected are used
    this way without asking."""
    t = need_trace("use")
    return t.use(array)


def unit(x):
    """A Scalar (rank-0 array) holding the value x."""
    t = need_trace("unit", x)
    return _acc(t, t.node(lib.acc_unit(t.g, lift(t, x, None, "unit")),
                          "unit"))


def the(xs):
    """The value of a Scalar array."""
    t = need_trace("the", xs)
    return t.wrap(t.node(lib.acc_the(t.g, lift_array(t, xs, "the")), "the"))


def shape(xs):
    """The shape of an array (an Index)."""
    t = need_trace("shape", xs)
    n = lift_array(t, xs, "shape")
    return t.wrap(t.node(lib.acc_shape(t.g, n), "shape"))


def size(xs):
    """The number of elements of an array (i64)."""
    t = need_trace("size", xs)
    return t.wrap(t.node(lib.acc_size(t.g, lift_array(t, xs, "size")),
                         "size"))


def read(xs, ix):
    """xs ! ix."""
    t = need_trace("read", xs, ix)
    n = lift_array(t, xs, "read")
    return t.wrap(t.node(lib.acc_read(t.g, n, lift(
        t, ix, Shape(_rank(t, n)), "read (!)")), "read (!)"))


def read_linear(xs, k):
    """xs !! k: element k in row-major order."""
    t = need_trace("read_linear", xs, k)
    n = lift_array(t, xs, "read_linear")
    return t.wrap(t.node(lib.acc_read_linear(
        t.g, n, lift(t, k, i64, "linear read (!!)")), "linear read (!!)"))


# --- construction and producers (LANGUAGE.md 3.1) ---------------------------

def generate(sh, f):
    """generate sh f: the element at ix is f(ix) (f(i, j) in 2-D; f(i) of
    an i64 in 1-D)."""
    t = need_trace("generate", sh)
    ns = shape_node(t, sh, "generate: the shape")
    lam = fun(t, f, [lib.acc_node_type(ns)], None, "generate")
    return _acc(t, t.node(lib.acc_generate(t.g, ns, lam), "generate"))


def fill(sh, x, dtype=None):
    """fill sh x: every element is x (of type dtype when given)."""
    t = need_trace("fill", sh, x)
    ns = shape_node(t, sh, "fill: the shape")
    nx = lift(t, x, None if dtype is None else scalar(dtype), "fill")
    return _acc(t, t.node(lib.acc_fill(t.g, ns, nx), "fill"))


def map(f, xs):
    """map f xs."""
    t = need_trace("map", xs)
    n = lift_array(t, xs, "map")
    lam = fun(t, f, [_elem(t, n)], None, "map")
    return _acc(t, t.node(lib.acc_map(t.g, lam, n), "map"))


def zipwith(f, *arrays):
    """zipWith f xs ys ...: f takes one parameter per array; the extent
    is the intersection of the arrays' extents."""
    if not arrays:
        raise errors.InvalidArgumentError("zipwith needs at least one array",
                                          errors.ERR_INVALID_ARGUMENT)
    t = need_trace("zipwith", *arrays)
    nodes = [lift_array(t, a, "zipwith") for a in arrays]
    lam = fun(t, f, [_elem(t, n) for n in nodes], None, "zipWith")
    arr = (_H * len(nodes))(*nodes)
    return _acc(t, t.node(lib.acc_zipwith(t.g, lam, len(nodes), arr),
                          "zipWith"))


def backpermute(sh, p, xs):
    """backpermute sh' p xs: the element at ix' is xs ! p(ix')."""
    t = need_trace("backpermute", sh, xs)
    ns = shape_node(t, sh, "backpermute: the shape")
    n = lift_array(t, xs, "backpermute")
    lam = fun(t, p, [lib.acc_node_type(ns)], Shape(_rank(t, n)),
              "backpermute")
    return _acc(t, t.node(lib.acc_backpermute(t.g, ns, lam, n),
                          "backpermute"))


def reshape(sh, xs):
    """reshape sh xs: the same elements, a new shape of the same size."""
    t = need_trace("reshape", sh, xs)
    ns = shape_node(t, sh, "reshape: the shape")
    return _acc(t, t.node(lib.acc_reshape(t.g, ns, lift_array(
        t, xs, "reshape")), "reshape"))


def _spec(t, spec, what):
    out = []
    for s in spec:
        if s is ALL:
            out.append(t.node(lib.acc_all(t.g), what))
        else:
            out.append(lift(t, s, i64, what))
    return (_H * _b.max(1, len(out)))(*out), len(out)


def replicate(spec, xs):
    """replicate spec xs: spec lists, outermost first, accel.All (keep the
    next dimension of xs) or an extent (a new dimension)."""
    t = need_trace("replicate", spec, xs)
    arr, n = _spec(t, spec, "replicate")
    return _acc(t, t.node(lib.acc_replicate(t.g, n, arr, lift_array(
        t, xs, "replicate")), "replicate"))


def slice(xs, spec):
    """slice xs spec: spec has accel.All (keep the dimension) or an index
    (fix it) per dimension of xs."""
    t = need_trace("slice", xs, spec)
    n = lift_array(t, xs, "slice")
    arr, k = _spec(t, spec, "slice")
    return _acc(t, t.node(lib.acc_slice(t.g, n, k, arr), "slice"))


# --- reductions (LANGUAGE.md 3.2) ---------------------------------------------

def _combiner(t, f, n, what):
    e = _elem(t, n)
    return fun(t, f, [e, e], _elem_py(t, n), what)


def fold(f, z, xs):
    """fold f z xs: reduces the innermost dimension; z is used once per
    row (an empty row gives z); f must be associative."""
    t = need_trace("fold", z, xs)
    n = lift_array(t, xs, "fold")
    nz = lift(t, z, _elem_py(t, n), "fold: the initial value")
    return _acc(t, t.node(lib.acc_fold(t.g, _combiner(t, f, n, "fold"), nz,
                                       n), "fold"))


def fold1(f, xs):
    """fold1 f xs: fold without a seed; an empty row is an error."""
    t = need_trace("fold1", xs)
    n = lift_array(t, xs, "fold1")
    return _acc(t, t.node(lib.acc_fold1(t.g, _combiner(t, f, n, "fold1"),
                                        n), "fold1"))


def fold_all(f, z, xs):
    """foldAll f z xs: every element reduced to a Scalar."""
    t = need_trace("fold_all", z, xs)
    n = lift_array(t, xs, "fold_all")
    nz = lift(t, z, _elem_py(t, n), "fold_all: the initial value")
    return _acc(t, t.node(lib.acc_fold_all(
        t.g, _combiner(t, f, n, "foldAll"), nz, n), "foldAll"))


def fold1_all(f, xs):
    t = need_trace("fold1_all", xs)
    n = lift_array(t, xs, "fold1_all")
    return _acc(t, t.node(lib.acc_fold1_all(
        t.g, _combiner(t, f, n, "fold1All"), n), "fold1All"))


def fold_seg(f, z, xs, seg):
    """foldSeg f z xs seg: one result per segment of the innermost
    dimension; seg holds segment lengths (a Vector i64)."""
    t = need_trace("fold_seg", z, xs, seg)
    n = lift_array(t, xs, "fold_seg")
    nz = lift(t, z, _elem_py(t, n), "fold_seg: the initial value")
    return _acc(t, t.node(lib.acc_fold_seg(
        t.g, _combiner(t, f, n, "foldSeg"), nz, n,
        lift_array(t, seg, "fold_seg")), "foldSeg"))


def fold_seg_offsets(f, z, xs, offsets):
    """foldSeg' f z xs offsets: segments given by offsets (one more entry
    than segments, from 0 to the total)."""
    t = need_trace("fold_seg_offsets", z, xs, offsets)
    n = lift_array(t, xs, "fold_seg_offsets")
    nz = lift(t, z, _elem_py(t, n), "fold_seg_offsets: the initial value")
    return _acc(t, t.node(lib.acc_fold_seg_offsets(
        t.g, _combiner(t, f, n, "foldSeg'"), nz, n,
        lift_array(t, offsets, "fold_seg_offsets")), "foldSeg'"))


def fold1_seg(f, xs, seg):
    t = need_trace("fold1_seg", xs, seg)
    n = lift_array(t, xs, "fold1_seg")
    return _acc(t, t.node(lib.acc_fold1_seg(
        t.g, _combiner(t, f, n, "fold1Seg"), n,
        lift_array(t, seg, "fold1_seg")), "fold1Seg"))


def _std1(cname, name):
    fn = getattr(lib, cname)

    def f(xs):
        t = need_trace(name, xs)
        return _acc(t, t.node(fn(t.g, lift_array(t, xs, name)), name))
    f.__name__ = name
    return f


sum = _std1("acc_sum", "sum")
product = _std1("acc_product", "product")
maximum = _std1("acc_maximum", "maximum")
minimum = _std1("acc_minimum", "minimum")
and_ = _std1("acc_and", "and")
or_ = _std1("acc_or", "or")
sum.__doc__ = "sum xs = fold (+) 0 xs (each row of the innermost dimension)."
product.__doc__ = "product xs = fold (*) 1 xs."
maximum.__doc__ = "maximum xs = fold1 max xs (an empty row is an error)."
minimum.__doc__ = "minimum xs = fold1 min xs."
and_.__doc__ = "and xs: every element of each row holds (bool arrays)."
or_.__doc__ = "or xs: some element of each row holds."


def _predicate_std(cname, name):
    fn = getattr(lib, cname)

    def f(p, xs):
        t = need_trace(name, xs)
        n = lift_array(t, xs, name)
        lam = fun(t, p, [_elem(t, n)], bool_, name)
        return _acc(t, t.node(fn(t.g, lam, n), name))
    f.__name__ = name
    return f


all = _predicate_std("acc_all_of", "all")
any = _predicate_std("acc_any", "any")
all_of = all
filter = _predicate_std("acc_filter", "filter")
all.__doc__ = "all p xs = and (map p xs)."
any.__doc__ = "any p xs = or (map p xs)."
filter.__doc__ = ("filter p xs: (the kept elements as a vector, how many "
                  "each row kept).")


# --- scans (LANGUAGE.md 3.3) -----------------------------------------------------

_SCANS = {"scanl": 1, "scanl_prime": 2, "scanl1": 3, "scanr": 4,
          "scanr_prime": 5, "scanr1": 6, "prescanl": 7, "postscanl": 8,
          "prescanr": 9, "postscanr": 10}
_NO_SEED = ("scanl1", "scanr1")


def _scan_fn(name, segmented):
    kind = _SCANS[name]
    seeded = name not in _NO_SEED

    def scan(f, *args):
        want = (3 if seeded else 2) + (1 if segmented else 0)
        if len(args) + 1 != want:
            raise errors.InvalidArgumentError(
                "%s takes %d arguments" % (scan.__name__, want),
                errors.ERR_INVALID_ARGUMENT)
        z = args[0] if seeded else None
        xs = args[1 if seeded else 0]
        t = need_trace(scan.__name__, *args)
        n = lift_array(t, xs, scan.__name__)
        nz = lift(t, z, _elem_py(t, n), scan.__name__) if seeded else None
        lam = _combiner(t, f, n, scan.__name__)
        if segmented:
            seg = lift_array(t, args[-1], scan.__name__)
            node = lib.acc_scan_seg(t.g, kind, lam, nz, n, seg)
        else:
            node = lib.acc_scan(t.g, kind, lam, nz, n)
        return _acc(t, t.node(node, scan.__name__))
    scan.__name__ = name + ("_seg" if segmented else "")
    scan.__doc__ = "%s f %sxs%s (LANGUAGE.md 3.3)." % (
        scan.__name__, "z " if seeded else "", " seg" if segmented else "")
    return scan


scanl = _scan_fn("scanl", False)
scanl_prime = _scan_fn("scanl_prime", False)
scanl1 = _scan_fn("scanl1", False)
scanr = _scan_fn("scanr", False)
scanr_prime = _scan_fn("scanr_prime", False)
scanr1 = _scan_fn("scanr1", False)
prescanl = _scan_fn("prescanl", False)
postscanl = _scan_fn("postscanl", False)
prescanr = _scan_fn("prescanr", False)
postscanr = _scan_fn("postscanr", False)
scanl_seg = _scan_fn("scanl", True)
scanl_prime_seg = _scan_fn("scanl_prime", True)
scanl1_seg = _scan_fn("scanl1", True)
scanr_seg = _scan_fn("scanr", True)
scanr_prime_seg = _scan_fn("scanr_prime", True)
scanr1_seg = _scan_fn("scanr1", True)
prescanl_seg = _scan_fn("prescanl", True)
postscanl_seg = _scan_fn("postscanl", True)
prescanr_seg = _scan_fn("prescanr", True)
postscanr_seg = _scan_fn("postscanr", True)


# --- permutations, stencils, expansion (3.4 - 3.6) --------------------------------

def permute(f, defaults, p, xs):
    """permute f defaults p xs: a copy of defaults into which each element
    of xs is combined (f(new, old)) at target p(ix), or dropped when p
    returns accel.ignore."""
    t = need_trace("permute", defaults, xs)
    nd = lift_array(t, defaults, "permute: the defaults")
    n = lift_array(t, xs, "permute")
    comb = _combiner(t, f, nd, "permute")
    target = fun(t, p, [lib.acc_type_shape(_rank(t, n))],
                 Shape(_rank(t, nd)), "permute (target)")
    return _acc(t, t.node(lib.acc_permute(t.g, comb, nd, target, n),
                          "permute"))


def permute_pairs(f, defaults, xs):
    """permute' f defaults xs: each element of xs is a pair (target index
    or accel.ignore, value)."""
    t = need_trace("permute_pairs", defaults, xs)
    nd = lift_array(t, defaults, "permute_pairs: the defaults")
    n = lift_array(t, xs, "permute_pairs")
    comb = _combiner(t, f, nd, "permute'")
    return _acc(t, t.node(lib.acc_permute_pairs(t.g, comb, nd, n),
                          "permute'"))


_BOUNDARIES = {"clamp": 1, "mirror": 2, "wrap": 3}


class constant:
    """A stencil boundary: every element out of range is `value`."""

    def __init__(self, value):
        self.value = value


class function:
    """A stencil boundary: the element at out-of-range index ix is
    g(ix)."""

    def __init__(self, g):
        self.g = g


def _boundary(t, b, n, rank, what):
    if isinstance(b, str):
        if b not in _BOUNDARIES:
            raise errors.InvalidArgumentError(
                "%s: boundary %r: expected clamp, mirror, wrap, "
                "accel.constant(v) or accel.function(g)" % (what, b),
                errors.ERR_INVALID_ARGUMENT)
        return _BOUNDARIES[b], None
    if isinstance(b, function):
        sh = lib.acc_type_shape(rank)
        return 4, fun(t, b.g, [sh], _elem_py(t, n), what + " (boundary)")
    value = b.value if isinstance(b, constant) else b
    return 5, lift(t, value, _elem_py(t, n), what + " (boundary)")


def _widths(width, rank, what):
    if width is None:
        width = 3
    if isinstance(width, int):
        width = (width,) * rank
    width = tuple(width)
    if len(width) != rank or not _b.all(
            isinstance(w, int) and w in (3, 5, 7, 9) for w in width):
        raise errors.InvalidArgumentError(
            "%s: width %r: expected 3, 5, 7 or 9 for each of the %d "
            "dimensions" % (what, width, rank), errors.ERR_INVALID_ARGUMENT)
    return width


def _neighbourhood(elem, widths):
    if not widths:
        return elem
    inner = _neighbourhood(elem, widths[1:])
    return (inner,) * widths[0]


def stencil(f, boundary, xs, width=3):
    """stencil f boundary xs: f receives the neighbourhood of each element
    as nested tuples, outermost dimension outermost (3x3: three rows of
    three; f may take the rows as three parameters); width is 3, 5, 7 or
    9, per dimension or for all.  boundary: "clamp", "mirror", "wrap",
    accel.constant(v) (or v) or accel.function(g)."""
    t = need_trace("stencil", xs)
    n = lift_array(t, xs, "stencil")
    rank = _rank(t, n)
    widths = _widths(width, rank, "stencil")
    hood = type_ptr(t.context, _neighbourhood(_elem_py(t, n), widths))
    lam = fun(t, f, [hood], None, "stencil")
    kind, arg = _boundary(t, boundary, n, rank, "stencil")
    w = (c_int32 * rank)(*widths)
    return _acc(t, t.node(lib.acc_stencil(t.g, lam, w, kind, arg, n),
                          "stencil"))


def stencil2(f, boundary1, xs, boundary2, ys, width1=3, width2=3):
    """stencil2 f b1 xs b2 ys: f receives both neighbourhoods."""
    t = need_trace("stencil2", xs, ys)
    n1 = lift_array(t, xs, "stencil2")
    n2 = lift_array(t, ys, "stencil2")
    r1, r2 = _rank(t, n1), _rank(t, n2)
    w1, w2 = _widths(width1, r1, "stencil2"), _widths(width2, r2, "stencil2")
    h1 = type_ptr(t.context, _neighbourhood(_elem_py(t, n1), w1))
    h2 = type_ptr(t.context, _neighbourhood(_elem_py(t, n2), w2))
    lam = fun(t, f, [h1, h2], None, "stencil2")
    k1, a1 = _boundary(t, boundary1, n1, r1, "stencil2")
    k2, a2 = _boundary(t, boundary2, n2, r2, "stencil2")
    return _acc(t, t.node(lib.acc_stencil2(
        t.g, lam, (c_int32 * r1)(*w1), k1, a1, n1,
        (c_int32 * r2)(*w2), k2, a2, n2), "stencil2"))


def expand(size_fn, get, xs):
    """expand size get xs (vectors): element x contributes size(x) results
    get(x, 0) .. get(x, size(x) - 1), in order."""
    t = need_trace("expand", xs)
    n = lift_array(t, xs, "expand")
    e = _elem(t, n)
    s = fun(t, size_fn, [e], i64, "expand (size)")
    g = fun(t, get, [e, i64.ptr], None, "expand (get)")
    return _acc(t, t.node(lib.acc_expand(t.g, s, g, n), "expand"))


# --- control and foreign functions (3.7, 3.8) -------------------------------------

def acond(c, a, b):
    """acond c a b: the array computation a if c holds, else b."""
    t = need_trace("acond", c, a, b)
    nc = lift(t, c, bool_, "acond: the condition")
    return _acc(t, t.node(lib.acc_acond(t.g, nc, lift_array(t, a, "acond"),
                                        lift_array(t, b, "acond")), "acond"))


def awhile(cond_fn, body, init):
    """awhile cond body init over arrays: cond_fn returns a Scalar bool
    array (or a bool value), tested before each application of body."""
    t = need_trace("awhile", init)
    ni = lift_array(t, init, "awhile: the initial value")
    tp = lib.acc_node_type(ni)
    c = afun(t, cond_fn, tp, None, "awhile (condition)", scalar_bool=True)
    f = afun(t, body, tp, None, "awhile (body)")
    return _acc(t, t.node(lib.acc_awhile(t.g, c, f, ni), "awhile"))


def foreign(name, fallback, arg):
    """foreign name fallback arg: the implementation registered under
    `name` for the backend (a plugin's) when one accepts the argument,
    else fallback(arg), a function over arrays that refers to no
    parameter of an enclosing function."""
    t = need_trace("foreign", arg)
    na = lift_array(t, arg, "foreign: the argument")
    f = afun(t, fallback, lib.acc_node_type(na), None, "foreign (fallback)")
    return _acc(t, t.node(lib.acc_foreign(t.g, name.encode(), f, na),
                          "foreign"))


# --- standard library: structure, gather and scatter, BLAS, FFT ------------------

def enum_from_n(sh, x):
    """enumFromN sh x: x, x+1, ... in row-major order."""
    t = need_trace("enum_from_n", sh, x)
    ns = shape_node(t, sh, "enum_from_n: the shape")
    return _acc(t, t.node(lib.acc_enum_from_n(
        t.g, ns, lift(t, x, None, "enum_from_n")), "enumFromN"))


def enum_from_step_n(sh, x, step):
    """enumFromStepN sh x step: x, x+step, x+2 step, ..."""
    t = need_trace("enum_from_step_n", sh, x, step)
    ns = shape_node(t, sh, "enum_from_step_n: the shape")
    nx = lift(t, x, _value_type(step), "enum_from_step_n")
    nstep = lift(t, step, t.type_of(nx), "enum_from_step_n")
    return _acc(t, t.node(lib.acc_enum_from_step_n(t.g, ns, nx, nstep),
                          "enumFromStepN"))


def _std_arrays(cname, name, doc):
    fn = getattr(lib, cname)

    n_arrays = len(fn.argtypes) - 1

    def f(*arrays):
        if len(arrays) != n_arrays:
            raise errors.InvalidArgumentError(
                "accel.%s takes %d array%s, got %d" % (
                    name, n_arrays, "" if n_arrays == 1 else "s",
                    len(arrays)), errors.ERR_INVALID_ARGUMENT)
        t = need_trace(name, *arrays)
        nodes = [lift_array(t, a, name) for a in arrays]
        return _acc(t, t.node(fn(t.g, *nodes), name))
    f.__name__ = name
    f.__doc__ = doc
    return f


def zip(*arrays):
    """zip xs ys (zip3 .. zip9 with more arrays): an array of tuples, one
    field per array; the extent is the intersection."""
    t = need_trace("zip", *arrays)
    nodes = [lift_array(t, a, "zip") for a in arrays]
    arr = (_H * _b.max(1, len(nodes)))(*nodes)
    return _acc(t, t.node(lib.acc_zip_n(t.g, len(nodes), arr), "zip"))


def length(xs):
    """length xs: the innermost extent (a vector's number of elements), an
    i64 value."""
    t = need_trace("length", xs)
    return t.wrap(t.node(lib.acc_length(t.g, lift_array(t, xs, "length")),
                         "length"))


unzip = _std_arrays("acc_unzip", "unzip",
                    "unzip xs: a tuple of arrays, one per field.")
indexed = _std_arrays("acc_indexed", "indexed",
                      "indexed xs: each element paired with its index.")
reverse = _std_arrays("acc_reverse", "reverse", "reverse each row.")
transpose = _std_arrays("acc_transpose", "transpose",
                        "swap the two innermost dimensions.")
flatten = _std_arrays("acc_flatten", "flatten",
                      "the elements in row-major order, as a vector.")
init = _std_arrays("acc_init", "init", "all but the last of each row.")
tail = _std_arrays("acc_tail", "tail", "all but the first of each row.")
concat = _std_arrays("acc_concat", "concat",
                     "xs ++ ys on the innermost dimension.")
gather = _std_arrays("acc_gather", "gather",
                     "gather indices xs: xs ! (indices ! ix).")
scatter = _std_arrays("acc_scatter", "scatter",
                      "scatter to defaults xs: xs written at targets to.")
compact = _std_arrays("acc_compact", "compact",
                      "compact keep xs: (kept elements, count per row).")
dot = _std_arrays("acc_dot", "dot",
                  "dot xs ys: sum of products (foreign blas.dot).")
gemv = _std_arrays("acc_gemv", "gemv",
                   "gemv a x: matrix times vector (foreign blas.gemv).")
gemm = _std_arrays("acc_gemm", "gemm",
                   "gemm a b: matrix product (foreign blas.gemm).")
fft = _std_arrays("acc_fft", "fft", "forward DFT of (re, im) pairs "
                  "(foreign fft.forward).")
ifft = _std_arrays("acc_ifft", "ifft", "inverse DFT, divided by the number "
                   "of elements (foreign fft.inverse).")


def _std_count(cname, name, doc):
    fn = getattr(lib, cname)

    def f(n, xs):
        t = need_trace(name, n, xs)
        return _acc(t, t.node(fn(t.g, lift(t, n, i64, name),
                                 lift_array(t, xs, name)), name))
    f.__name__ = name
    f.__doc__ = doc
    return f


take = _std_count("acc_take", "take", "take n xs: the first n of each row.")
drop = _std_count("acc_drop", "drop", "drop n xs: all but the first n.")


def slit(i, n, xs):
    """slit i n xs = take n (drop i xs)."""
    t = need_trace("slit", i, n, xs)
    return _acc(t, t.node(lib.acc_slit(t.g, lift(t, i, i64, "slit"),
                                       lift(t, n, i64, "slit"),
                                       lift_array(t, xs, "slit")), "slit"))

