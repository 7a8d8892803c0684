"""_arrays.py -- arrays in and out of acc_run.

Inputs.  An ndarray (or anything numpy can read) whose dtype is the
parameter's, C-contiguous and aligned, is passed as it is: the descriptor
points at its buffer.  Any other array is converted once, to a new
C-contiguous array of the parameter's type, when the conversion keeps
values: bool to anything, integers to integers (every value checked to
fit) and to floats, floats to floats.  Floats to integers, integers to
bool, complex numbers and other kinds are refused with an error naming
the argument, never reinterpreted.  An object with __dlpack__ (a PyTorch
tensor, a CuPy array) is imported through DLPack without a copy when it
is compact and of the right type; otherwise it is read through numpy and
converted like an array.  A tuple element type takes a tuple of arrays of
one shape, nested as the type is.

Outputs.  accel allocates each result; numpy arrays are made over its
buffers without a copy, and the buffers are released when the last array
over them dies (any thread, also after the program and context are
gone).  With out=, results are written into the caller's arrays, which
must have exactly the result's dtype, rank and extents, be C-contiguous
and writable.

The descriptors of one call live in one ctypes array of 64-bit words
(acc_array is 31 words: struct_size, type, rank, extents[8], data[16],
memory|device, ownership, release, release_state), filled by index.
"""
import ctypes
import sys

import numpy as np

from . import _lib, errors
from .dtypes import Shape, array_name, leaves as elem_leaves
from ._lib import lib

WORDS = _lib.ARRAY_SIZE // 8
W_TYPE, W_RANK, W_EXTENTS, W_DATA, W_MEMORY, W_OWNERSHIP = 1, 2, 3, 11, 27, 28
assert _lib.OFF_EXTENTS == 8 * W_EXTENTS and _lib.OFF_DATA == 8 * W_DATA
assert _lib.AccArray.memory.offset == 8 * W_MEMORY
assert _lib.AccArray.ownership.offset == 8 * W_OWNERSHIP
assert _lib.ARRAY_SIZE % 8 == 0

_Word = ctypes.c_uint64
_addressof = ctypes.addressof
_char_from_buffer = ctypes.c_char.from_buffer
_ndarray = np.ndarray

# DLPack dtype codes (acc_dl_type_code) -> numpy kind letters.
_DL_KINDS = {0: "i", 1: "u", 2: "f", 6: "b"}


def words(n):
    """A zeroed block of n descriptors."""
    return (_Word * (WORDS * max(n, 1)))()


def template(specs):
    """The words of descriptors for `specs` with struct_size, type and
    rank filled (inputs, and outputs given out=)."""
    w = words(len(specs))
    for k, s in enumerate(specs):
        w[k * WORDS] = _lib.ARRAY_SIZE
        w[k * WORDS + W_TYPE] = s.type_ptr
        w[k * WORDS + W_RANK] = s.rank
    return bytes(w)


def empty_outputs(n):
    """The words of n output descriptors for accel to fill."""
    w = words(n)
    for k in range(n):
        w[k * WORDS] = _lib.ARRAY_SIZE
    return bytes(w)


class Spec:
    """One input or output of a program: element type, rank, C type."""
    __slots__ = ("elem", "rank", "type_ptr", "leaves", "dtypes", "name",
                 "dtype0", "shape_names")

    def __init__(self, elem, rank, type_ptr, name=None):
        self.elem = elem
        self.rank = rank
        self.type_ptr = type_ptr
        self.leaves = elem_leaves(elem)
        self.dtypes = [s.dtype for s in self.leaves]
        self.dtype0 = self.dtypes[0] if len(self.dtypes) == 1 else None
        self.name = name

    def describe(self):
        return array_name(self.elem, self.rank)


class Where:
    """Where an argument goes, for messages: 'argument 2 'ys' of dotp'."""
    __slots__ = ("function", "position", "name", "role")

    def __init__(self, function, position, name, role="argument"):
        self.function, self.position, self.name = function, position, name
        self.role = role

    def __str__(self):
        s = "%s %d" % (self.role, self.position)
        if self.name:
            s += " '%s'" % self.name
        return s + " of %s" % self.function

    def fail(self, cls, status, what):
        raise cls("%s: %s" % (self, what), status, function=self.function,
                  argument=self.position, name=self.name)


def describe(x):
    """A value as messages describe it: 'float64 array of shape (3, 4)'."""
    if isinstance(x, _ndarray):
        return "%s array of shape %s" % (x.dtype, x.shape)
    if isinstance(x, np.generic):
        return "numpy %s scalar" % x.dtype
    if isinstance(x, (bool, int, float, complex)):
        return "%s %r" % (type(x).__name__, x)
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        return "%s %s of shape %s" % (type(x).__name__, x.dtype,
                                      tuple(x.shape))
    if isinstance(x, (tuple, list)):
        return "%s of %d" % (type(x).__name__, len(x))
    return "a %s" % type(x).__name__


# --- conversions --------------------------------------------------------

def _convertible(src, dst):
    """Whether values of dtype src convert to dst keeping their values
    (integer ranges are checked on the values)."""
    if src == dst:
        return True
    sk, dk = src.kind, dst.kind
    if sk == "b":
        return dk in "biuf"
    if sk in "iu":
        return dk in "iuf"
    if sk == "f":
        return dk == "f"
    return False


def _fits(x, dst):
    """Whether every integer of x fits the integer dtype dst."""
    if x.size == 0 or dst.kind not in "iu" or x.dtype.kind not in "iu":
        return True
    info = np.iinfo(dst)
    lo, hi = x.min(), x.max()
    return int(lo) >= info.min and int(hi) <= info.max


def convert(x, dtype, rank, where, spec):
    """x as a C-contiguous, aligned ndarray of `dtype` and `rank` (x itself
    when it already is one), or an error naming `where`."""
    if not isinstance(x, _ndarray):
        if isinstance(x, (str, bytes, dict, set)) or x is None:
            where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                       "expected a %s, got %s" % (spec.describe(),
                                                  describe(x)))
        if isinstance(x, int) and not isinstance(x, bool) and \
                dtype.kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= x <= info.max:
                where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                           "%d does not fit %s" % (x, dtype))
            x = np.array(x, dtype)
        else:
            try:
                x = np.asarray(x)
            except Exception as e:  # numpy's own complaint, with context
                where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                           "expected a %s, got %s (%s)" % (
                               spec.describe(), describe(x), e))
            if x.dtype.kind == "i" and dtype.kind in "iu" and x.ndim == 0 \
                    and not _fits(x, dtype):
                where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                           "%s does not fit %s" % (x, dtype))
    if x.ndim != rank:
        where.fail(errors.ShapeError, errors.ERR_SHAPE,
                   "expected a %s, got %s" % (spec.describe(), describe(x)))
    if x.dtype != dtype:
        if not _convertible(x.dtype, dtype):
            hint = ""
            if x.dtype.kind == "f" and dtype.kind in "iub":
                hint = " (floats are not converted to %s: convert them " \
                       "explicitly, e.g. x.astype(np.%s))" % (dtype, dtype)
            elif x.dtype.kind == "c":
                hint = " (accel keeps complex numbers as pairs of real " \
                       "arrays: pass (x.real, x.imag))"
            where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                       "expected a %s, got %s%s" % (spec.describe(),
                                                    describe(x), hint))
        if not _fits(x, dtype):
            where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                       "expected a %s, got %s whose values do not all fit "
                       "%s" % (spec.describe(), describe(x), dtype))
        return np.ascontiguousarray(x, dtype)
    if not (x.flags.c_contiguous and x.flags.aligned):
        return np.ascontiguousarray(x)
    return x


def address(x):
    """The address of an ndarray's first element (0 for an empty one)."""
    try:
        return _addressof(_char_from_buffer(x))
    except (TypeError, ValueError, BufferError):  # read-only or empty
        return x.__array_interface__["data"][0] or 0


# --- DLPack ---------------------------------------------------------------

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
# The protocol's capsule names; they must outlive the capsules.
_DLTENSOR, _USED = b"dltensor", b"used_dltensor"
_DLTENSOR_V, _USED_V = b"dltensor_versioned", b"used_dltensor_versioned"


def _dlpack_import(x, dtype, rank):
    """Imports a __dlpack__ object as a library-owned acc_array (no copy),
    or returns None when accel cannot take it as it is (the caller then
    converts it through numpy).  The capsule is marked used only when
    accel took the tensor."""
    try:
        capsule = x.__dlpack__()
    except Exception:
        return None
    versioned = _api.PyCapsule_IsValid(capsule, _DLTENSOR_V)
    if not versioned and not _api.PyCapsule_IsValid(capsule, _DLTENSOR):
        return None
    name = _DLTENSOR_V if versioned else _DLTENSOR
    ptr = _api.PyCapsule_GetPointer(capsule, name)
    if versioned:
        t = ctypes.cast(ptr, ctypes.POINTER(
            _lib.DLManagedTensorVersioned)).contents.dl_tensor
    else:
        t = ctypes.cast(ptr, ctypes.POINTER(
            _lib.DLManagedTensor)).contents.dl_tensor
    if (t.ndim != rank or _DL_KINDS.get(t.dtype.code) != dtype.kind or
            t.dtype.bits != 8 * dtype.itemsize or t.dtype.lanes != 1):
        return None  # not the parameter's type: numpy converts it
    desc = _lib.AccArray()
    importer = (lib.acc_array_from_dlpack_versioned if versioned
                else lib.acc_array_from_dlpack)
    if importer(ptr, _addressof(desc)):
        return None  # strided, misaligned, ...: the capsule stays its own
    _api.PyCapsule_SetName(capsule, _USED_V if versioned else _USED)
    return desc


def _from_foreign(x, dtype, rank, where, spec, imports):
    """A leaf that is not an ndarray: a DLPack import (appended to
    `imports`, released after the run) or a converted ndarray."""
    if hasattr(x, "__dlpack__") and not isinstance(x, np.generic):
        desc = _dlpack_import(x, dtype, rank)
        if desc is not None:
            imports.append(desc)
            return desc
        try:
            x = np.from_dlpack(x)
        except Exception:
            try:
                x = np.asarray(x)
            except Exception:
                pass
    return convert(x, dtype, rank, where, spec)


# --- inputs ----------------------------------------------------------------

def _fields(elem):
    """The fields of a tuple element type; a Shape r counts as r i64s."""
    if isinstance(elem, Shape):
        return (elem_leaves(elem)[0],) * elem.rank
    return elem


def _leaf_values(x, elem, where, spec, out):
    """The leaf arrays of a tuple-typed argument, in leaf order."""
    if not isinstance(elem, (tuple, Shape)):
        out.append(x)
        return
    elem = _fields(elem)
    if not isinstance(x, (tuple, list)) or len(x) != len(elem):
        where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                   "expected a %s (a tuple of %d arrays of one shape), got "
                   "%s" % (spec.describe(), len(elem), describe(x)))
    for xi, ei in zip(x, elem):
        _leaf_values(xi, ei, where, spec, out)


def put_input(spec, x, w, base, keep, imports, where):
    """Writes the descriptor of argument x for input `spec` at word
    `base` of w.  Arrays made here go to `keep`; DLPack imports to
    `imports` (both must outlive the run)."""
    dt = spec.dtype0
    if dt is not None:
        if type(x) is _ndarray and x.dtype == dt and x.ndim == spec.rank:
            # The call path: a writable C-contiguous array gives its
            # address at once (from_buffer refuses anything else).
            try:
                a = _addressof(_char_from_buffer(x))
            except (TypeError, ValueError, BufferError):
                a = -1
            if a >= 0 and a % dt.itemsize == 0:
                e = base + W_EXTENTS
                for n in x.shape:
                    w[e] = n
                    e += 1
                w[base + W_DATA] = a
                return
        leaf = _leaf(x, dt, spec, where, keep, imports)
        _put_leaf(w, base, leaf, 0)
        return
    values = []
    _leaf_values(x, spec.elem, where, spec, values)
    shape = None
    for i, (v, d) in enumerate(zip(values, spec.dtypes)):
        leaf = _leaf(v, d, spec, where, keep, imports)
        s = _leaf_shape(leaf)
        if shape is None:
            shape = s
        elif s != shape:
            where.fail(errors.ShapeError, errors.ERR_SHAPE,
                       "the arrays of a %s must have one shape; component "
                       "0 has shape %s, component %d %s" % (
                           spec.describe(), shape, i, s))
        _put_leaf(w, base, leaf, i)


def _leaf(x, dt, spec, where, keep, imports):
    if isinstance(x, _ndarray):
        y = convert(x, dt, spec.rank, where, spec)
    else:
        y = _from_foreign(x, dt, spec.rank, where, spec, imports)
    if y is not x:
        keep.append(y)
    return y


def _leaf_shape(leaf):
    if isinstance(leaf, _lib.AccArray):
        return tuple(leaf.extents[:leaf.rank])
    return leaf.shape


def _put_array(w, base, x, i):
    if i == 0:
        e = base + W_EXTENTS
        for n in x.shape:
            w[e] = n
            e += 1
    w[base + W_DATA + i] = address(x)


def _put_leaf(w, base, leaf, i):
    if not isinstance(leaf, _lib.AccArray):
        _put_array(w, base, leaf, i)
        return
    if i == 0:
        for k in range(leaf.rank):
            w[base + W_EXTENTS + k] = leaf.extents[k]
        w[base + W_MEMORY] = leaf.memory | (leaf.device << 32)
    w[base + W_DATA + i] = leaf.data[0] or 0


def release_imports(imports):
    for desc in imports:
        lib.acc_array_release(_addressof(desc))


# --- outputs ---------------------------------------------------------------

def put_output(spec, x, w, base, keep, imports, where):
    """Writes the descriptor of a caller-provided output x (out=)."""
    values = []
    _leaf_values(x, spec.elem, where, spec, values)
    shape = None
    for i, (v, dt) in enumerate(zip(values, spec.dtypes)):
        if isinstance(v, _ndarray):
            if v.dtype != dt or v.ndim != spec.rank:
                where.fail(errors.TypeMismatchError if v.dtype != dt else
                           errors.ShapeError,
                           errors.ERR_TYPE if v.dtype != dt else
                           errors.ERR_SHAPE,
                           "expected a %s to write into, got %s (out= "
                           "arrays are written as they are: no conversion)"
                           % (spec.describe(), describe(v)))
            if not (v.flags.c_contiguous and v.flags.aligned and
                    v.flags.writeable):
                where.fail(errors.InvalidArgumentError,
                           errors.ERR_INVALID_ARGUMENT,
                           "an out= array must be C-contiguous, aligned and "
                           "writable")
            leaf = v
        elif hasattr(v, "__dlpack__"):
            leaf = _dlpack_import(v, dt, spec.rank)
            if leaf is None:
                where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                           "expected a compact %s to write into, got %s" % (
                               spec.describe(), describe(v)))
            imports.append(leaf)
        else:
            where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                       "expected a %s to write into, got %s" % (
                           spec.describe(), describe(v)))
        s = _leaf_shape(leaf)
        if shape is None:
            shape = s
        elif s != shape:
            where.fail(errors.ShapeError, errors.ERR_SHAPE,
                       "the arrays of a %s must have one shape; got %s and "
                       "%s" % (spec.describe(), shape, s))
        _put_leaf(w, base, leaf, i)


class _Owner:
    """Owns one library-allocated output: releases its buffers when the
    last numpy array over them dies."""
    __slots__ = ("words", "base")

    def __init__(self, w, base):
        self.words = w
        self.base = base

    def __del__(self):
        lib.acc_array_release(_addressof(self.words) + 8 * self.base)


class _Window(ctypes.c_char * (sys.maxsize // 2)):
    """A view of memory at an address, as long as any array can be, for
    numpy to build an array over the part a result occupies; its `owner`
    (an instance attribute) keeps the output alive while numpy's array,
    whose base it is, lives.  (A ctypes array type of the exact length
    per result would be cached by ctypes for every length ever seen.)"""


_from_address = _Window.from_address


def take_output(spec, w, base):
    """The numpy array(s) of library-allocated output at word `base`:
    one array, or a tuple nested as the element type."""
    rank = spec.rank
    shape = tuple(w[base + W_EXTENTS:base + W_EXTENTS + rank])
    owner = _Owner(w, base)
    if w[base + W_MEMORY] & 0xFFFFFFFF:  # acc_memory: not host memory
        # (accel allocates host outputs unless asked otherwise; numpy
        # cannot read device memory, so never wrap it)
        raise errors.UnsupportedError(
            "a result in device memory cannot become a numpy array",
            errors.ERR_UNSUPPORTED)
    arrays = []
    for i, dt in enumerate(spec.dtypes):
        ptr = w[base + W_DATA + i]
        if not ptr or 0 in shape:
            arrays.append(np.zeros(shape, dt))
            continue
        window = _from_address(ptr)
        window.owner = owner
        arrays.append(_ndarray(shape, dt, window))
    if spec.dtype0 is not None:
        return arrays[0]
    return _nest(spec.elem, iter(arrays))


def _nest(elem, it):
    if isinstance(elem, (tuple, Shape)):
        return tuple(_nest(e, it) for e in _fields(elem))
    return next(it)


def release_outputs(w, n):
    """Releases library-allocated outputs not handed to numpy (after an
    error while wrapping them)."""
    for k in range(n):
        lib.acc_array_release(_addressof(w) + 8 * k * WORDS)

