"""dtypes.py -- accel's element types in Python.

A scalar type is one of the objects accel.bool_, accel.i8 ... accel.f64
(accel.h's acc_scalar); an index or shape of rank r is Shape(r); a tuple
element type is a Python tuple of element types, nested as the type is:
(f32, (i32, bool)).  An array type is an element type and a rank, named
as the text language names it ("Vector f32", "Array 3 (f32, i32)").

Calling a scalar type converts: accel.f32(x) is a conversion node when x
is symbolic (inside an accel.jit function), element by element when x is
a symbolic array, and a numpy scalar of that type otherwise.
"""
import numpy as np

from . import _lib

# acc_type_kind
KIND_SCALAR, KIND_TUPLE, KIND_SHAPE, KIND_ARRAY = 1, 2, 3, 4


class Scalar:
    """A scalar element type (accel.f32, ...)."""
    __slots__ = ("name", "code", "dtype", "ptr", "kind")

    def __init__(self, name, code, dtype, kind):
        self.name = name
        self.code = code  # acc_scalar
        self.dtype = np.dtype(dtype)
        self.ptr = _lib.lib.acc_type_scalar(code)
        self.kind = kind  # "bool", "signed", "unsigned" or "float"

    def __repr__(self):
        return "accel." + ("bool_" if self.name == "bool" else self.name)

    def __str__(self):
        return self.name

    def __reduce__(self):
        return (scalar, (self.name,))

    @property
    def is_float(self):
        return self.kind == "float"

    @property
    def is_integer(self):
        return self.kind in ("signed", "unsigned")

    def __call__(self, x):
        from . import _trace  # the symbolic layer sits above this module
        return _trace.convert(x, self)


class Shape:
    """The type of an index or shape of rank r (r i64 components)."""
    __slots__ = ("rank",)

    def __init__(self, rank):
        self.rank = rank

    def __eq__(self, other):
        return isinstance(other, Shape) and other.rank == self.rank

    def __hash__(self):
        return hash(("Shape", self.rank))

    def __repr__(self):
        return "Shape(%d)" % self.rank

    def __str__(self):
        return "Shape %d" % self.rank

    @property
    def ptr(self):
        return _lib.lib.acc_type_shape(self.rank)


bool_ = Scalar("bool", 1, np.bool_, "bool")
i8 = Scalar("i8", 2, np.int8, "signed")
i16 = Scalar("i16", 3, np.int16, "signed")
i32 = Scalar("i32", 4, np.int32, "signed")
i64 = Scalar("i64", 5, np.int64, "signed")
u8 = Scalar("u8", 6, np.uint8, "unsigned")
u16 = Scalar("u16", 7, np.uint16, "unsigned")
u32 = Scalar("u32", 8, np.uint32, "unsigned")
u64 = Scalar("u64", 9, np.uint64, "unsigned")
f32 = Scalar("f32", 10, np.float32, "float")
f64 = Scalar("f64", 11, np.float64, "float")

SCALARS = (bool_, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64)
_BY_NAME = {s.name: s for s in SCALARS}
_BY_CODE = {s.code: s for s in SCALARS}
_BY_DTYPE = {s.dtype: s for s in SCALARS}
_BY_PTR = {s.ptr: s for s in SCALARS}


def scalar(spec):
    """The Scalar named by `spec`: a Scalar, a name ("f32", "bool"), a
    numpy dtype or type (np.float32), or Python's bool/int/float (bool,
    i64, f64).  TypeError for anything else."""
    if isinstance(spec, Scalar):
        return spec
    if isinstance(spec, str) and spec in _BY_NAME:
        return _BY_NAME[spec]
    if spec is bool:
        return bool_
    if spec is int:
        return i64
    if spec is float:
        return f64
    try:
        dt = np.dtype(spec)
    except TypeError:
        dt = None
    s = _BY_DTYPE.get(dt) if dt is not None else None
    if s is None or (dt.byteorder not in "=|" and dt != s.dtype):
        raise TypeError("%r is not an accel scalar type (bool, i8, i16, i32, "
                        "i64, u8, u16, u32, u64, f32, f64)" % (spec,))
    return s


def from_dtype(dtype):
    """The Scalar of a numpy dtype in native byte order, or None."""
    return _BY_DTYPE.get(dtype)


def from_code(code):
    return _BY_CODE[code]


def elem_from_json(tree):
    """An element type from its JSON form in signatures ("f32",
    ["f32", ["i32", "bool"]], {"shape": 2})."""
    if isinstance(tree, str):
        return _BY_NAME[tree]
    if isinstance(tree, dict):
        return Shape(tree["shape"])
    return tuple(elem_from_json(t) for t in tree)


_SHAPE_PTRS = {_lib.lib.acc_type_shape(r): Shape(r)
               for r in range(_lib.MAX_RANK + 1)}


def decode(ptr, cache):
    """The Python form of a C type pointer: a Scalar, a Shape, a tuple of
    element types, an ArrayType, or a tuple of array types.  Tuple and
    array types live as long as their context, which passes its own
    `cache` (a dict): a later context may reuse their addresses."""
    t = _BY_PTR.get(ptr) or _SHAPE_PTRS.get(ptr) or cache.get(ptr)
    if t is not None:
        return t
    lib = _lib.lib
    kind = lib.acc_type_get_kind(ptr)
    if kind == KIND_SCALAR:
        t = _BY_CODE[lib.acc_type_get_scalar(ptr)]
    elif kind == KIND_SHAPE:
        t = Shape(lib.acc_type_get_rank(ptr))
    elif kind == KIND_TUPLE:
        t = tuple(decode(lib.acc_type_get_field(ptr, i), cache)
                  for i in range(lib.acc_type_get_arity(ptr)))
    elif kind == KIND_ARRAY:
        t = ArrayType(decode(lib.acc_type_get_elem(ptr), cache),
                      lib.acc_type_get_rank(ptr))
    else:
        raise ValueError("not an accel type: %#x" % (ptr or 0))
    cache[ptr] = t
    return t


class ArrayType:
    """The type of a symbolic array: element type and rank."""
    __slots__ = ("elem", "rank")

    def __init__(self, elem, rank):
        self.elem = elem
        self.rank = rank

    def __eq__(self, other):
        return (isinstance(other, ArrayType) and other.rank == self.rank and
                other.elem == self.elem)

    def __hash__(self):
        return hash((self.elem, self.rank))

    def __repr__(self):
        return "ArrayType(%r, %d)" % (self.elem, self.rank)

    def __str__(self):
        return array_name(self.elem, self.rank)


def elem_name(elem):
    """"f32", "(f32, (i32, bool))", "Shape 2"."""
    if isinstance(elem, tuple):
        return "(" + ", ".join(elem_name(e) for e in elem) + ")"
    return str(elem)


def array_name(elem, rank):
    """The text language's name of an array type: "Scalar f32", "Vector
    (f32, f32)", "Matrix i32", "Array 3 f64"."""
    prefix = {0: "Scalar", 1: "Vector", 2: "Matrix"}.get(rank,
                                                        "Array %d" % rank)
    return "%s %s" % (prefix, elem_name(elem))


def leaves(elem):
    """The scalar leaves of an element type, depth first (a Shape r has r
    i64 leaves), as acc_type_leaf orders them."""
    if isinstance(elem, tuple):
        return [leaf for e in elem for leaf in leaves(e)]
    if isinstance(elem, Shape):
        return [i64] * elem.rank
    return [elem]


def type_ptr(ctx, elem):
    """The C type pointer of an element type; a tuple type is made in
    context `ctx` (a Context) and lives as long as it."""
    if isinstance(elem, (Scalar, Shape)):
        return elem.ptr
    fields = [type_ptr(ctx, e) for e in elem]
    arr = (_lib.c_void_p * max(1, len(fields)))(*fields)
    p = _lib.lib.acc_type_tuple(ctx.handle, len(fields), arr)
    if not p:
        from .errors import InvalidArgumentError
        raise InvalidArgumentError(
            _lib.lib.acc_context_last_error(ctx.handle).decode())
    return p
