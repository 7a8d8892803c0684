//! Element types and shapes: the Rust types that stand for accel's scalar
//! types, tuples of them, and indices (DESIGN.md §3).
//!
//! An element type `E` ([`Elem`]) is a [`Scalar`] (`bool`, `i8` ... `u64`,
//! `f32`, `f64`), an index [`Ix<N>`], or a tuple of element types (up to
//! eight fields, nested as deep as you like).  Arrays of tuples are stored
//! as tuples of arrays, one buffer per scalar leaf: an
//! `ArrayView<(f32, i32)>` is made of a `(&[f32], &[i32])` ([`Elem::Slices`]).
//! In the builder a closure sees an element as [`Elem::Exp`]: an
//! [`Exp<T>`](crate::Exp) for a scalar, a tuple of those for a tuple, and
//! `[Exp<i64>; N]` for an index, so that `|(a, b)| ...` and `|[i, j]| ...`
//! destructure them.
use std::fmt::Debug;
use std::os::raw::c_void;

use accel_sys as sys;

use crate::exp::{Exp, Node};
use crate::graph::GraphCore;

/// A context pointer this crate made (hidden: trait plumbing; it cannot
/// be made outside this crate, so safe code cannot pass a wild pointer).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct CtxRef(pub(crate) *mut sys::acc_context);
/// A type pointer accel gave this crate (hidden, as [`CtxRef`]).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct TypeRef(pub(crate) *const sys::acc_type);
/// A node pointer accel gave this crate (hidden, as [`CtxRef`]).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct NodeRef(pub(crate) Node);

pub(crate) fn ty<E: Elem>(ctx: *mut sys::acc_context) -> *const sys::acc_type {
    E::acc_type(CtxRef(ctx))
}
pub(crate) fn matches<E: Elem>(t: *const sys::acc_type) -> bool {
    E::matches(TypeRef(t))
}
pub(crate) fn from_node<E: Elem>(g: &GraphCore, n: Node) -> E::Exp<'_> {
    E::exp_from_node(g, NodeRef(n))
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// An element type of accel arrays: a scalar, an index or a tuple of
/// element types.  Implemented by this crate only.
///
/// # Safety
/// The leaf layout the methods describe must be the one accel uses for the
/// type (`acc_type_leaf`); only this crate implements the trait.
pub unsafe trait Elem: Copy + Send + Sync + Debug + 'static + sealed::Sealed {
    /// How builder closures see a value of this type.
    type Exp<'g>: Copy;
    /// One borrowed slice per scalar leaf.
    type Slices<'a>: Copy;
    /// One mutable slice per scalar leaf.
    type SlicesMut<'a>;
    /// The number of scalar leaves (buffers of an array).
    const LEAVES: usize;

    #[doc(hidden)]
    /// The accel type, made in `ctx` when it is a tuple (NULL on error).
    fn acc_type(ctx: CtxRef) -> *const sys::acc_type;
    #[doc(hidden)]
    /// Whether accel's type `t` is this type.
    fn matches(t: TypeRef) -> bool;
    #[doc(hidden)]
    /// The type as accel prints it: `f32`, `(f32, i32)`, `[i64, i64]`.
    fn name(out: &mut String);
    #[doc(hidden)]
    fn exp_from_node<'g>(g: &'g GraphCore, n: NodeRef) -> Self::Exp<'g>;
    #[doc(hidden)]
    fn exp_into_node<'g>(g: &'g GraphCore, e: Self::Exp<'g>) -> Node;
    #[doc(hidden)]
    fn const_node(self, g: &GraphCore) -> Node;
    #[doc(hidden)]
    /// Writes the leaves' pointers; returns the common length, or None
    /// when the slices' lengths differ.
    fn slice_ptrs(s: Self::Slices<'_>, out: &mut [*mut c_void]) -> Option<usize>;
    #[doc(hidden)]
    fn slice_mut_ptrs(s: &mut Self::SlicesMut<'_>, out: &mut [*mut c_void]) -> Option<usize>;
    #[doc(hidden)]
    /// # Safety
    /// Each pointer is valid for `len` reads of its leaf for `'a` (or `len`
    /// is 0).
    unsafe fn slices<'a>(ptrs: &[*mut c_void], len: usize) -> Self::Slices<'a>;
    #[doc(hidden)]
    /// # Safety
    /// Each pointer is valid for reading element `i` of its leaf.
    unsafe fn read(ptrs: &[*mut c_void], i: usize) -> Self;
}

/// The scalar types: `bool`, `i8`, `i16`, `i32`, `i64`, `u8`, `u16`, `u32`,
/// `u64`, `f32`, `f64`.
pub trait Scalar: Elem + Default + PartialEq {
    #[doc(hidden)]
    const SCALAR: sys::acc_scalar;
    #[doc(hidden)]
    fn scalar_const(self, g: &GraphCore) -> Node;
}

/// Numeric scalars (every scalar but `bool`): `+ - * /`, `abs`, `min`, ...
pub trait Num: Scalar {}
/// Integer scalars: `quot`, `rem`, bitwise operations, shifts.
pub trait Int: Num {}
/// Floating scalars (`f32`, `f64`): `sqrt`, `exp`, `sin`, ...
pub trait Float: Num {}

/// # Safety
/// `p` is valid for `len` reads of `T` for `'a`, or `len` is 0.
unsafe fn slice_at<'a, T>(p: *mut c_void, len: usize) -> &'a [T] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(p as *const T, len) }
    }
}

macro_rules! scalar {
    ($t:ty, $code:ident, $name:literal, |$g:ident, $v:ident| $mk:expr) => {
        impl sealed::Sealed for $t {}
        // SAFETY: one leaf of the scalar type itself.
        unsafe impl Elem for $t {
            type Exp<'g> = Exp<'g, $t>;
            type Slices<'a> = &'a [$t];
            type SlicesMut<'a> = &'a mut [$t];
            const LEAVES: usize = 1;
            fn acc_type(_: CtxRef) -> *const sys::acc_type {
                // SAFETY: a static type.
                unsafe { sys::acc_type_scalar(sys::$code) }
            }
            fn matches(t: TypeRef) -> bool {
        let t = t.0;
                // SAFETY: accel answers 0 for anything that is not a type.
                unsafe {
                    !t.is_null()
                        && sys::acc_type_get_kind(t) == sys::ACC_TYPE_SCALAR
                        && sys::acc_type_get_scalar(t) == sys::$code
                }
            }
            fn name(out: &mut String) {
                out.push_str($name);
            }
            fn exp_from_node<'g>(g: &'g GraphCore, n: NodeRef) -> Exp<'g, $t> {
                Exp::wrap(g, n.0)
            }
            fn exp_into_node<'g>(_: &'g GraphCore, e: Exp<'g, $t>) -> Node {
                e.node()
            }
            fn const_node(self, g: &GraphCore) -> Node {
                self.scalar_const(g)
            }
            fn slice_ptrs(s: &[$t], out: &mut [*mut c_void]) -> Option<usize> {
                out[0] = s.as_ptr() as *mut c_void;
                Some(s.len())
            }
            fn slice_mut_ptrs(s: &mut &mut [$t], out: &mut [*mut c_void]) -> Option<usize> {
                out[0] = s.as_mut_ptr() as *mut c_void;
                Some(s.len())
            }
            unsafe fn slices<'a>(ptrs: &[*mut c_void], len: usize) -> &'a [$t] {
                // SAFETY: the caller's promise.
                unsafe { slice_at(ptrs[0], len) }
            }
            unsafe fn read(ptrs: &[*mut c_void], i: usize) -> $t {
                // SAFETY: the caller's promise.
                unsafe { *(ptrs[0] as *const $t).add(i) }
            }
        }
        impl Scalar for $t {
            const SCALAR: sys::acc_scalar = sys::$code;
            fn scalar_const(self, g: &GraphCore) -> Node {
                let $g = g.raw();
                let $v = self;
                // SAFETY: a graph pointer accel checks; NULL makes it fail.
                unsafe { $mk }
            }
        }
    };
}

scalar!(bool, ACC_BOOL, "bool", |g, v| sys::acc_const_bool(g, v as i32));
scalar!(i8, ACC_I8, "i8", |g, v| sys::acc_const_i64(g, sys::ACC_I8, v as i64));
scalar!(i16, ACC_I16, "i16", |g, v| sys::acc_const_i64(g, sys::ACC_I16, v as i64));
scalar!(i32, ACC_I32, "i32", |g, v| sys::acc_const_i64(g, sys::ACC_I32, v as i64));
scalar!(i64, ACC_I64, "i64", |g, v| sys::acc_const_i64(g, sys::ACC_I64, v));
scalar!(u8, ACC_U8, "u8", |g, v| sys::acc_const_u64(g, sys::ACC_U8, v as u64));
scalar!(u16, ACC_U16, "u16", |g, v| sys::acc_const_u64(g, sys::ACC_U16, v as u64));
scalar!(u32, ACC_U32, "u32", |g, v| sys::acc_const_u64(g, sys::ACC_U32, v as u64));
scalar!(u64, ACC_U64, "u64", |g, v| sys::acc_const_u64(g, sys::ACC_U64, v));
scalar!(f32, ACC_F32, "f32", |g, v| sys::acc_const_f64(g, sys::ACC_F32, v as f64));
scalar!(f64, ACC_F64, "f64", |g, v| sys::acc_const_f64(g, sys::ACC_F64, v));

macro_rules! marker {
    ($tr:ident: $($t:ty),*) => { $(impl $tr for $t {})* };
}
marker!(Num: i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);
marker!(Int: i8, i16, i32, i64, u8, u16, u32, u64);
marker!(Float: f32, f64);

/// An index (or a shape) of rank `N`: `N` extents or coordinates, outermost
/// first.  As a type parameter of [`Acc`](crate::Acc) it is the array's
/// rank ([`DIM0`] ... [`DIM8`]); as an element type, arrays of indices
/// (`indexed`, the targets of `permute'`).  Builder closures see an index
/// as `[Exp<i64>; N]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ix<const N: usize>(pub [i64; N]);

/// Rank 0: a Scalar.
pub type DIM0 = Ix<0>;
/// Rank 1: a Vector.
pub type DIM1 = Ix<1>;
/// Rank 2: a Matrix.
pub type DIM2 = Ix<2>;
/// Rank 3.
pub type DIM3 = Ix<3>;
/// Rank 4.
pub type DIM4 = Ix<4>;
/// Rank 5.
pub type DIM5 = Ix<5>;
/// Rank 6.
pub type DIM6 = Ix<6>;
/// Rank 7.
pub type DIM7 = Ix<7>;
/// Rank 8.
pub type DIM8 = Ix<8>;

impl<const N: usize> sealed::Sealed for Ix<N> {}

// SAFETY: an index of rank N is N i64 leaves (acc_type_shape).
unsafe impl<const N: usize> Elem for Ix<N> {
    type Exp<'g> = [Exp<'g, i64>; N];
    type Slices<'a> = [&'a [i64]; N];
    type SlicesMut<'a> = [&'a mut [i64]; N];
    const LEAVES: usize = N;
    fn acc_type(_: CtxRef) -> *const sys::acc_type {
        // SAFETY: a static type (NULL beyond rank 8).
        unsafe { sys::acc_type_shape(N as i32) }
    }
    fn matches(t: TypeRef) -> bool {
        let t = t.0;
        // SAFETY: accel answers 0 for anything that is not a type.
        unsafe {
            !t.is_null()
                && sys::acc_type_get_kind(t) == sys::ACC_TYPE_SHAPE
                && sys::acc_type_get_rank(t) == N as i32
        }
    }
    fn name(out: &mut String) {
        out.push_str(&format!("index of rank {N}"));
    }
    fn exp_from_node<'g>(g: &'g GraphCore, n: NodeRef) -> [Exp<'g, i64>; N] {
        std::array::from_fn(|i| Exp::wrap(g, g.get(n.0, i)))
    }
    fn exp_into_node<'g>(g: &'g GraphCore, e: [Exp<'g, i64>; N]) -> Node {
        let comps: [Node; N] = e.map(|x| x.node());
        // SAFETY: N nodes of this graph (or NULL, which fails the graph).
        unsafe { sys::acc_index(g.raw(), N, comps.as_ptr()) }
    }
    fn const_node(self, g: &GraphCore) -> Node {
        let comps: [Node; N] = self.0.map(|x| x.scalar_const(g));
        // SAFETY: as above.
        unsafe { sys::acc_index(g.raw(), N, comps.as_ptr()) }
    }
    fn slice_ptrs(s: [&[i64]; N], out: &mut [*mut c_void]) -> Option<usize> {
        for (o, s) in out.iter_mut().zip(s.iter()) {
            *o = s.as_ptr() as *mut c_void;
        }
        common_len(s.iter().map(|s| s.len()))
    }
    fn slice_mut_ptrs(s: &mut [&mut [i64]; N], out: &mut [*mut c_void]) -> Option<usize> {
        for (o, s) in out.iter_mut().zip(s.iter_mut()) {
            *o = s.as_mut_ptr() as *mut c_void;
        }
        common_len(s.iter().map(|s| s.len()))
    }
    unsafe fn slices<'a>(ptrs: &[*mut c_void], len: usize) -> [&'a [i64]; N] {
        // SAFETY: the caller's promise, leaf by leaf.
        std::array::from_fn(|i| unsafe { slice_at(ptrs[i], len) })
    }
    unsafe fn read(ptrs: &[*mut c_void], i: usize) -> Ix<N> {
        // SAFETY: the caller's promise, leaf by leaf.
        Ix(std::array::from_fn(|d| unsafe { *(ptrs[d] as *const i64).add(i) }))
    }
}

/// The common length of a tuple's leaves (an index of rank 0 has none:
/// its length is not known from them, and reads nothing).
fn common_len(mut lens: impl Iterator<Item = usize>) -> Option<usize> {
    let first = lens.next().unwrap_or(0);
    lens.all(|l| l == first).then_some(first)
}

/// The shapes of arrays: [`Ix<N>`] for `N` in 0..=8.
pub trait Shape: Elem {
    /// The rank.
    const RANK: usize;
}

/// Shapes of rank 1 and more, with the shape of one rank less: what a
/// reduction of the innermost dimension returns.
pub trait Lower: Shape {
    /// The shape with the innermost dimension removed.
    type Lower: Shape;
    #[doc(hidden)]
    /// The index of this rank made of an index of one rank less and an
    /// innermost coordinate.
    fn snoc<'g>(outer: <Self::Lower as Elem>::Exp<'g>, k: Exp<'g, i64>) -> Self::Exp<'g>;
}

macro_rules! ranks {
    ($($n:literal),*) => { $(impl Shape for Ix<$n> { const RANK: usize = $n; })* };
}
ranks!(0, 1, 2, 3, 4, 5, 6, 7, 8);

macro_rules! lower {
    ($($n:literal => $m:literal),*) => {
        $(impl Lower for Ix<$n> {
            type Lower = Ix<$m>;
            fn snoc<'g>(outer: [Exp<'g, i64>; $m], k: Exp<'g, i64>) -> [Exp<'g, i64>; $n] {
                std::array::from_fn(|i| outer.get(i).copied().unwrap_or(k))
            }
        })*
    };
}
lower!(1 => 0, 2 => 1, 3 => 2, 4 => 3, 5 => 4, 6 => 5, 7 => 6, 8 => 7);

macro_rules! tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Elem),+> sealed::Sealed for ($($t,)+) {}
        // SAFETY: the leaves of the fields in order, depth first, as
        // acc_type_leaf counts them.
        unsafe impl<$($t: Elem),+> Elem for ($($t,)+) {
            type Exp<'g> = ($($t::Exp<'g>,)+);
            type Slices<'a> = ($($t::Slices<'a>,)+);
            type SlicesMut<'a> = ($($t::SlicesMut<'a>,)+);
            const LEAVES: usize = 0 $(+ $t::LEAVES)+;
            fn acc_type(ctx: CtxRef) -> *const sys::acc_type {
                let fields = [$($t::acc_type(ctx)),+];
                let ctx = ctx.0;
                // SAFETY: field types (NULL makes accel fail).
                unsafe { sys::acc_type_tuple(ctx, fields.len(), fields.as_ptr()) }
            }
            fn matches(t: TypeRef) -> bool {
                let t = t.0;
                let n = [$($i),+].len();
                // SAFETY: accel answers 0/NULL for what does not apply.
                unsafe {
                    !t.is_null()
                        && sys::acc_type_get_kind(t) == sys::ACC_TYPE_TUPLE
                        && sys::acc_type_get_arity(t) == n
                        $(&& $t::matches(TypeRef(sys::acc_type_get_field(t, $i))))+
                }
            }
            fn name(out: &mut String) {
                out.push('(');
                $( if $i > 0 { out.push_str(", "); } $t::name(out); )+
                out.push(')');
            }
            fn exp_from_node<'g>(g: &'g GraphCore, n: NodeRef) -> Self::Exp<'g> {
                ($($t::exp_from_node(g, NodeRef(g.get(n.0, $i))),)+)
            }
            fn exp_into_node<'g>(g: &'g GraphCore, e: Self::Exp<'g>) -> Node {
                let items = [$($t::exp_into_node(g, e.$i)),+];
                g.tuple(&items)
            }
            fn const_node(self, g: &GraphCore) -> Node {
                let items = [$(self.$i.const_node(g)),+];
                g.tuple(&items)
            }
            #[allow(unused_assignments)]
            fn slice_ptrs(s: Self::Slices<'_>, out: &mut [*mut c_void]) -> Option<usize> {
                let mut at = 0;
                let mut len: Option<Option<usize>> = None;
                $(
                    let l = $t::slice_ptrs(s.$i, &mut out[at..at + $t::LEAVES])?;
                    if $t::LEAVES > 0 {
                        if len.is_some_and(|x| x != Some(l)) { return None; }
                        len = Some(Some(l));
                    }
                    at += $t::LEAVES;
                )+
                Some(len.flatten().unwrap_or(0))
            }
            #[allow(unused_assignments)]
            fn slice_mut_ptrs(s: &mut Self::SlicesMut<'_>, out: &mut [*mut c_void]) -> Option<usize> {
                let mut at = 0;
                let mut len: Option<Option<usize>> = None;
                $(
                    let l = $t::slice_mut_ptrs(&mut s.$i, &mut out[at..at + $t::LEAVES])?;
                    if $t::LEAVES > 0 {
                        if len.is_some_and(|x| x != Some(l)) { return None; }
                        len = Some(Some(l));
                    }
                    at += $t::LEAVES;
                )+
                Some(len.flatten().unwrap_or(0))
            }
            #[allow(unused_assignments)]
            unsafe fn slices<'a>(ptrs: &[*mut c_void], len: usize) -> Self::Slices<'a> {
                let mut at = 0;
                // SAFETY: the caller's promise, field by field.
                ($({
                    let s = unsafe { $t::slices(&ptrs[at..at + $t::LEAVES], len) };
                    at += $t::LEAVES;
                    s
                },)+)
            }
            #[allow(unused_assignments)]
            unsafe fn read(ptrs: &[*mut c_void], i: usize) -> Self {
                let mut at = 0;
                // SAFETY: the caller's promise, field by field.
                ($({
                    let v = unsafe { $t::read(&ptrs[at..at + $t::LEAVES], i) };
                    at += $t::LEAVES;
                    v
                },)+)
            }
        }
    };
}
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// The name of an accel type as this crate writes element types: `f32`,
/// `(f32, i32)`, `index of rank 2`.
pub(crate) fn type_name(t: *const sys::acc_type) -> String {
    // SAFETY: accel answers 0/NULL for what does not apply to a type.
    unsafe {
        match sys::acc_type_get_kind(t) {
            sys::ACC_TYPE_SCALAR => {
                crate::error::static_str(sys::acc_scalar_name(sys::acc_type_get_scalar(t)))
                    .to_owned()
            }
            sys::ACC_TYPE_SHAPE => format!("index of rank {}", sys::acc_type_get_rank(t)),
            sys::ACC_TYPE_TUPLE => {
                let fields: Vec<String> = (0..sys::acc_type_get_arity(t))
                    .map(|i| type_name(sys::acc_type_get_field(t, i)))
                    .collect();
                format!("({})", fields.join(", "))
            }
            _ => "an unknown type".to_owned(),
        }
    }
}

/// `E`'s name.
pub(crate) fn elem_name<E: Elem>() -> String {
    let mut s = String::new();
    E::name(&mut s);
    s
}
