//! Scalar expressions of the builder: [`Exp<T>`] with the `std::ops`
//! operators and the primitive functions of LANGUAGE.md §2.
//!
//! Operators work on expressions and on constants on either side
//! (`x * 2.0 + 1.0`, `1.0 - x`).  `/` is floating division on floats and
//! `quot` (toward zero) on integers, `%` is `rem` (the dividend's sign),
//! as in Rust; `div_floor` and `mod_floor` are LANGUAGE.md's `div` and
//! `mod`.  Comparisons are methods (`x.lt(y)`), since Rust's comparison
//! traits must return `bool`.
use std::marker::PhantomData;
use std::ops;

use accel_sys as sys;

use crate::elem::{Elem, Float, Int, Ix, Num, Scalar};
use crate::graph::GraphCore;

/// A node of a graph (NULL after a builder error: accel's builder calls are
/// sticky and fail on NULL arguments).
pub(crate) type Node = *mut sys::acc_node;

/// A scalar expression of element type `T` in the graph `'g` (a node of
/// the graph).  Copying it copies a reference: using one `Exp` twice
/// means one value used twice (sharing is by identity, as in
/// Accelerate).
pub struct Exp<'g, T> {
    g: &'g GraphCore,
    node: Node,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Exp<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Exp<'_, T> {}

impl<T> std::fmt::Debug for Exp<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exp").field("node", &self.node).finish()
    }
}

impl<'g, T> Exp<'g, T> {
    pub(crate) fn wrap(g: &'g GraphCore, node: Node) -> Self {
        Exp { g, node, _t: PhantomData }
    }
    pub(crate) fn node(self) -> Node {
        self.node
    }
    fn un<U>(self, op: sys::acc_primop) -> Exp<'g, U> {
        // SAFETY: a node of this graph (NULL fails the graph).
        Exp::wrap(self.g, unsafe { sys::acc_unop(self.g.raw(), op, self.node) })
    }
    fn bin<U>(self, op: sys::acc_primop, rhs: Node) -> Exp<'g, U> {
        // SAFETY: as above.
        Exp::wrap(self.g, unsafe { sys::acc_binop(self.g.raw(), op, self.node, rhs) })
    }
}

/// Things that can be used where an expression of element type `E` is
/// expected: an [`Exp<E>`], a constant of type `E`, a tuple of those for a
/// tuple type, and `[X; N]` (X an `i64` expression or constant) for an
/// index of rank N.
pub trait IntoExp<'g, E: Elem> {
    #[doc(hidden)]
    fn into_node(self, g: &'g GraphCore) -> Node;
}

impl<'g, E: Elem> IntoExp<'g, E> for Exp<'g, E> {
    fn into_node(self, _: &'g GraphCore) -> Node {
        self.node
    }
}

impl<'g, T: Scalar> IntoExp<'g, T> for T {
    fn into_node(self, g: &'g GraphCore) -> Node {
        self.scalar_const(g)
    }
}

impl<'g, const N: usize> IntoExp<'g, Ix<N>> for Ix<N> {
    fn into_node(self, g: &'g GraphCore) -> Node {
        self.const_node(g)
    }
}

impl<'g, X: IntoExp<'g, i64>, const N: usize> IntoExp<'g, Ix<N>> for [X; N] {
    fn into_node(self, g: &'g GraphCore) -> Node {
        let comps: [Node; N] = self.map(|x| x.into_node(g));
        // SAFETY: N nodes of this graph (NULL fails the graph).
        unsafe { sys::acc_index(g.raw(), N, comps.as_ptr()) }
    }
}

macro_rules! into_exp_tuple {
    ($($x:ident $t:ident $i:tt),+) => {
        impl<'g, $($t: Elem, $x: IntoExp<'g, $t>),+> IntoExp<'g, ($($t,)+)> for ($($x,)+) {
            fn into_node(self, g: &'g GraphCore) -> Node {
                let items = [$(self.$i.into_node(g)),+];
                g.tuple(&items)
            }
        }
    };
}
into_exp_tuple!(XA A 0, XB B 1);
into_exp_tuple!(XA A 0, XB B 1, XC C 2);
into_exp_tuple!(XA A 0, XB B 1, XC C 2, XD D 3);
into_exp_tuple!(XA A 0, XB B 1, XC C 2, XD D 3, XE E 4);
into_exp_tuple!(XA A 0, XB B 1, XC C 2, XD D 3, XE E 4, XF F 5);
into_exp_tuple!(XA A 0, XB B 1, XC C 2, XD D 3, XE E 4, XF F 5, XG G 6);
into_exp_tuple!(XA A 0, XB B 1, XC C 2, XD D 3, XE E 4, XF F 5, XG G 6, XH H 7);

// --- operators -------------------------------------------------------------

macro_rules! binop_trait {
    ($tr:ident, $m:ident, $bound:ident, $op:ident) => {
        impl<'g, T: $bound> ops::$tr for Exp<'g, T> {
            type Output = Exp<'g, T>;
            fn $m(self, rhs: Exp<'g, T>) -> Exp<'g, T> {
                self.bin(sys::$op, rhs.node)
            }
        }
        impl<'g, T: $bound> ops::$tr<T> for Exp<'g, T> {
            type Output = Exp<'g, T>;
            fn $m(self, rhs: T) -> Exp<'g, T> {
                let r = rhs.scalar_const(self.g);
                self.bin(sys::$op, r)
            }
        }
    };
}
binop_trait!(Add, add, Num, ACC_OP_ADD);
binop_trait!(Sub, sub, Num, ACC_OP_SUB);
binop_trait!(Mul, mul, Num, ACC_OP_MUL);
binop_trait!(Rem, rem, Int, ACC_OP_REM);
binop_trait!(BitAnd, bitand, Int, ACC_OP_BAND);
binop_trait!(BitOr, bitor, Int, ACC_OP_BOR);
binop_trait!(BitXor, bitxor, Int, ACC_OP_BXOR);

/// Division: `/` on floats, `quot` on integers.
trait DivOp: Num {
    const DIV: sys::acc_primop;
}
macro_rules! div_op {
    ($op:ident: $($t:ty),*) => { $(impl DivOp for $t { const DIV: sys::acc_primop = sys::$op; })* };
}
div_op!(ACC_OP_FDIV: f32, f64);
div_op!(ACC_OP_QUOT: i8, i16, i32, i64, u8, u16, u32, u64);

#[allow(private_bounds)]
impl<'g, T: DivOp> ops::Div for Exp<'g, T> {
    type Output = Exp<'g, T>;
    fn div(self, rhs: Exp<'g, T>) -> Exp<'g, T> {
        self.bin(T::DIV, rhs.node)
    }
}
#[allow(private_bounds)]
impl<'g, T: DivOp> ops::Div<T> for Exp<'g, T> {
    type Output = Exp<'g, T>;
    fn div(self, rhs: T) -> Exp<'g, T> {
        let r = rhs.scalar_const(self.g);
        self.bin(T::DIV, r)
    }
}

impl<'g, T: Num> ops::Neg for Exp<'g, T> {
    type Output = Exp<'g, T>;
    fn neg(self) -> Exp<'g, T> {
        self.un(sys::ACC_OP_NEG)
    }
}

/// `!` is `not` on bool, the bitwise complement on integers.
trait NotOp: Scalar {
    const NOT: sys::acc_primop;
}
impl NotOp for bool {
    const NOT: sys::acc_primop = sys::ACC_OP_NOT;
}
macro_rules! not_op {
    ($($t:ty),*) => { $(impl NotOp for $t { const NOT: sys::acc_primop = sys::ACC_OP_COMPLEMENT; })* };
}
not_op!(i8, i16, i32, i64, u8, u16, u32, u64);

#[allow(private_bounds)]
impl<'g, T: NotOp> ops::Not for Exp<'g, T> {
    type Output = Exp<'g, T>;
    fn not(self) -> Exp<'g, T> {
        self.un(T::NOT)
    }
}

impl<'g, T: Int, U: Int> ops::Shl<Exp<'g, U>> for Exp<'g, T> {
    type Output = Exp<'g, T>;
    fn shl(self, rhs: Exp<'g, U>) -> Exp<'g, T> {
        self.bin(sys::ACC_OP_SHIFTL, rhs.node)
    }
}
impl<'g, T: Int> ops::Shl<i32> for Exp<'g, T> {
    type Output = Exp<'g, T>;
    fn shl(self, rhs: i32) -> Exp<'g, T> {
        let r = rhs.scalar_const(self.g);
        self.bin(sys::ACC_OP_SHIFTL, r)
    }
}
impl<'g, T: Int, U: Int> ops::Shr<Exp<'g, U>> for Exp<'g, T> {
    type Output = Exp<'g, T>;
    fn shr(self, rhs: Exp<'g, U>) -> Exp<'g, T> {
        self.bin(sys::ACC_OP_SHIFTR, rhs.node)
    }
}
impl<'g, T: Int> ops::Shr<i32> for Exp<'g, T> {
    type Output = Exp<'g, T>;
    fn shr(self, rhs: i32) -> Exp<'g, T> {
        let r = rhs.scalar_const(self.g);
        self.bin(sys::ACC_OP_SHIFTR, r)
    }
}

/// Constants on the left: `2.0 * x`, `1 - i`.
macro_rules! lhs_const {
    ($($t:ty),*) => { $(
        impl<'g> ops::Add<Exp<'g, $t>> for $t {
            type Output = Exp<'g, $t>;
            fn add(self, rhs: Exp<'g, $t>) -> Exp<'g, $t> { rhs.g.constant(self) + rhs }
        }
        impl<'g> ops::Sub<Exp<'g, $t>> for $t {
            type Output = Exp<'g, $t>;
            fn sub(self, rhs: Exp<'g, $t>) -> Exp<'g, $t> { rhs.g.constant(self) - rhs }
        }
        impl<'g> ops::Mul<Exp<'g, $t>> for $t {
            type Output = Exp<'g, $t>;
            fn mul(self, rhs: Exp<'g, $t>) -> Exp<'g, $t> { rhs.g.constant(self) * rhs }
        }
        impl<'g> ops::Div<Exp<'g, $t>> for $t {
            type Output = Exp<'g, $t>;
            fn div(self, rhs: Exp<'g, $t>) -> Exp<'g, $t> { rhs.g.constant(self) / rhs }
        }
    )* };
}
lhs_const!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

// --- methods -----------------------------------------------------------------

impl<'g, T: Scalar> Exp<'g, T> {
    fn cmp(self, op: sys::acc_primop, rhs: impl IntoExp<'g, T>) -> Exp<'g, bool> {
        let r = rhs.into_node(self.g);
        self.bin(op, r)
    }
    /// `self == rhs`.
    #[allow(clippy::should_implement_trait)]
    pub fn eq(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, bool> {
        self.cmp(sys::ACC_OP_EQ, rhs)
    }
    /// `self /= rhs`.
    #[allow(clippy::should_implement_trait)]
    pub fn ne(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, bool> {
        self.cmp(sys::ACC_OP_NE, rhs)
    }
    /// `self < rhs`.
    pub fn lt(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, bool> {
        self.cmp(sys::ACC_OP_LT, rhs)
    }
    /// `self <= rhs`.
    pub fn le(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, bool> {
        self.cmp(sys::ACC_OP_LE, rhs)
    }
    /// `self > rhs`.
    pub fn gt(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, bool> {
        self.cmp(sys::ACC_OP_GT, rhs)
    }
    /// `self >= rhs`.
    pub fn ge(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, bool> {
        self.cmp(sys::ACC_OP_GE, rhs)
    }
    /// `min self rhs` (`if self <= rhs then self else rhs`).
    pub fn min(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, T> {
        let r = rhs.into_node(self.g);
        self.bin(sys::ACC_OP_MIN, r)
    }
    /// `max self rhs`.
    pub fn max(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, T> {
        let r = rhs.into_node(self.g);
        self.bin(sys::ACC_OP_MAX, r)
    }
    /// Conversion to `U`: integers wrap (-1 to u8 is 255), floats to
    /// integers truncate toward zero (NaN gives 0, out of range
    /// saturates), anything to bool is "not zero", bool to numbers 0 or 1.
    pub fn cast<U: Scalar>(self) -> Exp<'g, U> {
        // SAFETY: a node of this graph.
        Exp::wrap(self.g, unsafe { sys::acc_convert(self.g.raw(), self.node, U::SCALAR) })
    }
}

impl<'g, T: Num> Exp<'g, T> {
    /// `abs self`.
    pub fn abs(self) -> Exp<'g, T> {
        self.un(sys::ACC_OP_ABS)
    }
    /// `signum self`: -1, 0 or 1.
    pub fn signum(self) -> Exp<'g, T> {
        self.un(sys::ACC_OP_SIGNUM)
    }
}

impl<'g, T: Int> Exp<'g, T> {
    /// `quot self rhs`: division truncated toward zero (the same as `/`).
    pub fn quot(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, T> {
        let r = rhs.into_node(self.g);
        self.bin(sys::ACC_OP_QUOT, r)
    }
    /// `div self rhs`: division rounded toward negative infinity.
    pub fn div_floor(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, T> {
        let r = rhs.into_node(self.g);
        self.bin(sys::ACC_OP_DIV, r)
    }
    /// `mod self rhs`: the remainder with the divisor's sign.
    pub fn mod_floor(self, rhs: impl IntoExp<'g, T>) -> Exp<'g, T> {
        let r = rhs.into_node(self.g);
        self.bin(sys::ACC_OP_MOD, r)
    }
    /// `popCount self` (an i64).
    pub fn count_ones(self) -> Exp<'g, i64> {
        self.un(sys::ACC_OP_POPCOUNT)
    }
    /// `countLeadingZeros self` (an i64).
    pub fn leading_zeros(self) -> Exp<'g, i64> {
        self.un(sys::ACC_OP_CLZ)
    }
    /// `even self` (standard library).
    pub fn even(self) -> Exp<'g, bool> {
        // SAFETY: a node of this graph.
        Exp::wrap(self.g, unsafe { sys::acc_even(self.g.raw(), self.node) })
    }
    /// `odd self` (standard library).
    pub fn odd(self) -> Exp<'g, bool> {
        // SAFETY: a node of this graph.
        Exp::wrap(self.g, unsafe { sys::acc_odd(self.g.raw(), self.node) })
    }
}

impl<'g> Exp<'g, bool> {
    /// `self && rhs` (short-circuit).
    pub fn and(self, rhs: impl IntoExp<'g, bool>) -> Exp<'g, bool> {
        let r = rhs.into_node(self.g);
        self.bin(sys::ACC_OP_LAND, r)
    }
    /// `self || rhs` (short-circuit).
    pub fn or(self, rhs: impl IntoExp<'g, bool>) -> Exp<'g, bool> {
        let r = rhs.into_node(self.g);
        self.bin(sys::ACC_OP_LOR, r)
    }
}

macro_rules! float_un {
    ($($(#[$doc:meta])* $m:ident => $op:ident),* $(,)?) => {
        $( $(#[$doc])* pub fn $m(self) -> Exp<'g, T> { self.un(sys::$op) } )*
    };
}

impl<'g, T: Float> Exp<'g, T> {
    float_un! {
        /// `sqrt self`.
        sqrt => ACC_OP_SQRT,
        /// `exp self`.
        exp => ACC_OP_EXP,
        /// `log self`, the natural logarithm.
        ln => ACC_OP_LOG,
        /// `sin self`.
        sin => ACC_OP_SIN,
        /// `cos self`.
        cos => ACC_OP_COS,
        /// `tan self`.
        tan => ACC_OP_TAN,
        /// `asin self`.
        asin => ACC_OP_ASIN,
        /// `acos self`.
        acos => ACC_OP_ACOS,
        /// `atan self`.
        atan => ACC_OP_ATAN,
        /// `sinh self`.
        sinh => ACC_OP_SINH,
        /// `cosh self`.
        cosh => ACC_OP_COSH,
        /// `tanh self`.
        tanh => ACC_OP_TANH,
    }
    /// `atan2 self x` (self is y).
    pub fn atan2(self, x: impl IntoExp<'g, T>) -> Exp<'g, T> {
        let r = x.into_node(self.g);
        self.bin(sys::ACC_OP_ATAN2, r)
    }
    /// `self ** e`.
    pub fn powf(self, e: impl IntoExp<'g, T>) -> Exp<'g, T> {
        let r = e.into_node(self.g);
        self.bin(sys::ACC_OP_POW, r)
    }
    /// `logBase base self`: the logarithm of self in base `base`.
    pub fn log(self, base: impl IntoExp<'g, T>) -> Exp<'g, T> {
        let b = base.into_node(self.g);
        // SAFETY: nodes of this graph.
        Exp::wrap(self.g, unsafe { sys::acc_binop(self.g.raw(), sys::ACC_OP_LOGBASE, b, self.node) })
    }
    /// `isNaN self`.
    pub fn is_nan(self) -> Exp<'g, bool> {
        self.un(sys::ACC_OP_ISNAN)
    }
    /// `isInfinite self`.
    pub fn is_infinite(self) -> Exp<'g, bool> {
        self.un(sys::ACC_OP_ISINF)
    }
    fn round_to<I: Int>(self, op: sys::acc_primop) -> Exp<'g, I> {
        // SAFETY: a node of this graph.
        Exp::wrap(self.g, unsafe { sys::acc_round_to(self.g.raw(), op, self.node, I::SCALAR) })
    }
    /// `truncate self` to the integer type `I` (toward zero; NaN gives 0,
    /// values out of range saturate).
    pub fn truncate<I: Int>(self) -> Exp<'g, I> {
        self.round_to(sys::ACC_OP_TRUNCATE)
    }
    /// `round self` to `I`: to the nearest, halves to the even neighbour
    /// (2.5 gives 2; unlike Rust's `f64::round`).
    pub fn round<I: Int>(self) -> Exp<'g, I> {
        self.round_to(sys::ACC_OP_ROUND)
    }
    /// `floor self` to `I`.
    pub fn floor<I: Int>(self) -> Exp<'g, I> {
        self.round_to(sys::ACC_OP_FLOOR)
    }
    /// `ceiling self` to `I`.
    pub fn ceiling<I: Int>(self) -> Exp<'g, I> {
        self.round_to(sys::ACC_OP_CEILING)
    }
}
