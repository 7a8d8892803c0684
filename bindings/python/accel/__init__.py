"""accel: data-parallel array programs compiled once, run many times.

    import accel, numpy as np
    prog = accel.compile(open("dotp.acc").read())      # text programs
    y = prog["dotp"](xs, ys)

    @accel.jit                                          # the language in Python
    def dotp(xs, ys):
        return accel.fold(lambda a, b: a + b, 0,
                          accel.zipwith(lambda a, b: a * b, xs, ys))

bindings/python/README.md is the guide.
"""
import atexit as _atexit

from . import _lib
from .errors import (AccelError, InvalidArgumentError, InvalidHandleError,
                     DataError, TypeMismatchError, ShapeError, ResourceError,
                     UnavailableError, UnsupportedError, NotFoundError,
                     ToolchainError, CompileError, DeviceError, PluginError,
                     ABIMismatchError, ParseError, RunError, CancelledError,
                     DeadlineError, InternalError)
from .dtypes import (Scalar, Shape, ArrayType, bool_, i8, i16, i32, i64, u8,
                     u16, u32, u64, f32, f64, scalar)
from .context import Context, context, _exiting
from .program import Program, Function, compile, load
from ._trace import Acc, Exp, Index
from .jit import jit, JitFunction
# The operations of the language (they shadow a few builtins inside this
# namespace only: accel.map, accel.zip, accel.sum, accel.min, ...).
from .lang import (
    cond, while_loop, abs, quot, rem, div, mod, popcount,
    count_leading_zeros, is_nan, is_infinite, land, lor, not_,
    from_integral, to_floating, even, odd, index, foreign_exp, use,
    unit, the, shape, size, read, read_linear, generate, fill, map,
    zipwith, backpermute, reshape, replicate, slice, fold, fold1,
    fold_all, fold1_all, fold_seg, fold_seg_offsets, fold1_seg, permute,
    permute_pairs, stencil, stencil2, expand, acond, awhile, foreign,
    enum_from_n, enum_from_step_n, slit, ignore, All, sqrt, exp, log,
    sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, negate, signum,
    complement, atan2, log_base, min, max, xor, shift_left, shift_right,
    truncate, round, floor, ceiling, sum, product, maximum, minimum,
    and_, or_, all, any, all_of, filter, zip, length, unzip, indexed, reverse,
    transpose, flatten, init, tail, concat, gather, scatter, compact,
    dot, gemv, gemm, fft, ifft, take, drop, constant, function, scanl,
    scanl_prime, scanl1, scanr, scanr_prime, scanr1, prescanl,
    postscanl, prescanr, postscanr, scanl_seg, scanl_prime_seg,
    scanl1_seg, scanr_seg, scanr_prime_seg, scanr1_seg, prescanl_seg,
    postscanl_seg, prescanr_seg, postscanr_seg)

__version__ = _lib.version
library_path = _lib.path
abi_version = _lib.ABI_VERSION


def _at_exit():
    _exiting[0] = True


_atexit.register(_at_exit)
