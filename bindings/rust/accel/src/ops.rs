//! The array operations of LANGUAGE.md §3 as methods of [`Graph`]:
//! producers (§3.1), reductions (§3.2), scans (§3.3), permutations (§3.4),
//! stencils (§3.5), expansion (§3.6), control (§3.7) and foreign
//! functions (§3.8).  The standard library is in `stdlib.rs`.
use std::ffi::CString;
use std::marker::PhantomData;
use std::ptr;

use accel_sys as sys;

use crate::elem::{CtxRef, Elem, Int, Ix, Lower, NodeRef, Shape, DIM0, DIM1};
use crate::error::Error;
use crate::exp::{Exp, IntoExp, Node};
use crate::graph::{Acc, Arrays, Graph, GraphCore};

/// An entry of a `replicate` or `slice` specification (LANGUAGE.md §3.1):
/// `All` keeps a dimension; an integer is a new dimension of that extent
/// (replicate) or a fixed index (slice).  `4.into()` and `e.into()` (an
/// `Exp<i64>`) make the integer entries.
#[derive(Debug, Clone, Copy)]
pub enum Spec<'g> {
    /// Keep the dimension.
    All,
    /// An integer entry computed by an expression.
    Int(Exp<'g, i64>),
    /// A constant integer entry.
    Lit(i64),
}

impl From<i64> for Spec<'_> {
    fn from(n: i64) -> Self {
        Spec::Lit(n)
    }
}
impl<'g> From<Exp<'g, i64>> for Spec<'g> {
    fn from(e: Exp<'g, i64>) -> Self {
        Spec::Int(e)
    }
}

impl Spec<'_> {
    fn node(self, g: &GraphCore) -> Node {
        match self {
            // SAFETY: a live graph.
            Spec::All => unsafe { sys::acc_all(g.raw()) },
            Spec::Int(e) => e.node(),
            Spec::Lit(n) => g.constant(n).node(),
        }
    }
}

type BoundaryMarker<'g, S, E> = PhantomData<(&'g GraphCore, fn() -> (S, E))>;

/// What a stencil reads outside the array (LANGUAGE.md §3.5).
pub struct Boundary<'g, S, E> {
    kind: sys::acc_boundary,
    arg: Node,
    _t: BoundaryMarker<'g, S, E>,
}

impl<S, E> Clone for Boundary<'_, S, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S, E> Copy for Boundary<'_, S, E> {}

impl<'g, S: Shape, E: Elem> Boundary<'g, S, E> {
    fn plain(kind: sys::acc_boundary) -> Self {
        Boundary { kind, arg: ptr::null_mut(), _t: PhantomData }
    }
    /// `clamp`: i < 0 reads 0, i >= n reads n-1.
    pub fn clamp() -> Self {
        Self::plain(sys::ACC_BOUNDARY_CLAMP)
    }
    /// `mirror`: i < 0 reads -i, i >= n reads 2n-2-i.
    pub fn mirror() -> Self {
        Self::plain(sys::ACC_BOUNDARY_MIRROR)
    }
    /// `wrap`: i < 0 reads n+i, i >= n reads i-n.
    pub fn wrap() -> Self {
        Self::plain(sys::ACC_BOUNDARY_WRAP)
    }
    /// `constant v`: every element outside is `v`.
    pub fn constant(g: &'g Graph<'_>, v: impl IntoExp<'g, E>) -> Self {
        Boundary { kind: sys::ACC_BOUNDARY_CONSTANT, arg: v.into_node(g.core()), _t: PhantomData }
    }
    /// `function f`: the element outside at index `ix` is `f ix`.
    pub fn function<R: IntoExp<'g, E>>(g: &'g Graph<'_>, f: impl FnOnce(S::Exp<'g>) -> R) -> Self {
        Boundary { kind: sys::ACC_BOUNDARY_FUNCTION, arg: g.core().lam1::<S, E, R>(f), _t: PhantomData }
    }
}

/// The widths of a stencil's neighbourhood: [`W<N>`] for N in every
/// dimension, or a tuple `(W<A>, W<B>)` (`(W<A>, W<B>, W<C>)`) of one width
/// per dimension, outermost first; widths are odd, 3 to 9.  The closure
/// sees the neighbourhood as nested arrays, outermost dimension outermost:
/// `|[[a, b, c], [d, e, f], [g, h, i]]|` for `W::<3>` in 2-D, `e` the focus
/// and `b` the element above it.
pub trait Window<S: Shape>: Copy {
    /// The neighbourhood of elements of type `E` as the closure sees it.
    type Of<'g, E: Elem>;
    #[doc(hidden)]
    fn widths() -> Vec<i32>;
    #[doc(hidden)]
    fn window_type<E: Elem>(ctx: CtxRef) -> *const sys::acc_type;
    #[doc(hidden)]
    fn from_node<'g, E: Elem>(g: &'g GraphCore, n: NodeRef) -> Self::Of<'g, E>;
}

pub(crate) fn window_type<E: Elem, Win: Window<S>, S: Shape>(ctx: *mut sys::acc_context) -> *const sys::acc_type {
    Win::window_type::<E>(CtxRef(ctx))
}

/// A stencil width: `W::<3>` (see [`Window`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct W<const N: usize>;

fn tuple_of(ctx: *mut sys::acc_context, field: *const sys::acc_type, n: usize) -> *const sys::acc_type {
    let fields = vec![field; n];
    // SAFETY: a type of the context, n times.
    unsafe { sys::acc_type_tuple(ctx, n, fields.as_ptr()) }
}

fn row<T, const N: usize>(g: &GraphCore, n: Node, f: impl Fn(Node) -> T) -> [T; N] {
    std::array::from_fn(|i| f(g.get(n, i)))
}

impl<const N: usize> Window<Ix<1>> for W<N> {
    type Of<'g, E: Elem> = [E::Exp<'g>; N];
    fn widths() -> Vec<i32> {
        vec![N as i32]
    }
    fn window_type<E: Elem>(ctx: CtxRef) -> *const sys::acc_type {
        let ctx = ctx.0;
        tuple_of(ctx, crate::elem::ty::<E>(ctx), N)
    }
    fn from_node<'g, E: Elem>(g: &'g GraphCore, n: NodeRef) -> Self::Of<'g, E> {
        let n = n.0;
        row(g, n, |x| crate::elem::from_node::<E>(g, x))
    }
}

impl<const A: usize, const B: usize> Window<Ix<2>> for (W<A>, W<B>) {
    type Of<'g, E: Elem> = [[E::Exp<'g>; B]; A];
    fn widths() -> Vec<i32> {
        vec![A as i32, B as i32]
    }
    fn window_type<E: Elem>(ctx: CtxRef) -> *const sys::acc_type {
        let ctx = ctx.0;
        tuple_of(ctx, tuple_of(ctx, crate::elem::ty::<E>(ctx), B), A)
    }
    fn from_node<'g, E: Elem>(g: &'g GraphCore, n: NodeRef) -> Self::Of<'g, E> {
        let n = n.0;
        row(g, n, |r| row(g, r, |x| crate::elem::from_node::<E>(g, x)))
    }
}

impl<const N: usize> Window<Ix<2>> for W<N> {
    type Of<'g, E: Elem> = [[E::Exp<'g>; N]; N];
    fn widths() -> Vec<i32> {
        vec![N as i32; 2]
    }
    fn window_type<E: Elem>(ctx: CtxRef) -> *const sys::acc_type {
        <(W<N>, W<N>) as Window<Ix<2>>>::window_type::<E>(ctx)
    }
    fn from_node<'g, E: Elem>(g: &'g GraphCore, n: NodeRef) -> Self::Of<'g, E> {
        <(W<N>, W<N>) as Window<Ix<2>>>::from_node::<E>(g, n)
    }
}

impl<const A: usize, const B: usize, const C: usize> Window<Ix<3>> for (W<A>, W<B>, W<C>) {
    type Of<'g, E: Elem> = [[[E::Exp<'g>; C]; B]; A];
    fn widths() -> Vec<i32> {
        vec![A as i32, B as i32, C as i32]
    }
    fn window_type<E: Elem>(ctx: CtxRef) -> *const sys::acc_type {
        let ctx = ctx.0;
        tuple_of(ctx, tuple_of(ctx, tuple_of(ctx, crate::elem::ty::<E>(ctx), C), B), A)
    }
    fn from_node<'g, E: Elem>(g: &'g GraphCore, n: NodeRef) -> Self::Of<'g, E> {
        let n = n.0;
        row(g, n, |p| row(g, p, |r| row(g, r, |x| crate::elem::from_node::<E>(g, x))))
    }
}

impl<const N: usize> Window<Ix<3>> for W<N> {
    type Of<'g, E: Elem> = [[[E::Exp<'g>; N]; N]; N];
    fn widths() -> Vec<i32> {
        vec![N as i32; 3]
    }
    fn window_type<E: Elem>(ctx: CtxRef) -> *const sys::acc_type {
        <(W<N>, W<N>, W<N>) as Window<Ix<3>>>::window_type::<E>(ctx)
    }
    fn from_node<'g, E: Elem>(g: &'g GraphCore, n: NodeRef) -> Self::Of<'g, E> {
        <(W<N>, W<N>, W<N>) as Window<Ix<3>>>::from_node::<E>(g, n)
    }
}

/// The scan kinds (acc_scan_kind).
#[derive(Clone, Copy)]
enum Scan {
    L = 1,
    LPrime = 2,
    L1 = 3,
    R = 4,
    RPrime = 5,
    R1 = 6,
    PreL = 7,
    PostL = 8,
    PreR = 9,
    PostR = 10,
}

impl<'c> Graph<'c> {
    fn scan_node<'g, E: Elem, R: IntoExp<'g, E>>(
        &'g self,
        kind: Scan,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        z: Option<Node>,
        xs: Node,
        seg: Option<Node>,
    ) -> Node {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        let z = z.unwrap_or(ptr::null_mut());
        // SAFETY: nodes of this graph; z is NULL only for the 1 kinds.
        unsafe {
            match seg {
                None => sys::acc_scan(g.raw(), kind as u32, f, z, xs),
                Some(s) => sys::acc_scan_seg(g.raw(), kind as u32, f, z, xs, s),
            }
        }
    }

    // --- §3.1 construction and producers --------------------------------

    /// `unit x`: a Scalar holding `x`.
    pub fn unit<'g, E: Elem>(&'g self, x: impl IntoExp<'g, E>) -> Acc<'g, DIM0, E> {
        let g = self.core();
        let x = x.into_node(g);
        // SAFETY: a node of this graph.
        g.acc(unsafe { sys::acc_unit(g.raw(), x) }, "unit")
    }

    /// `generate sh f`: the element at `ix` is `f ix`.
    pub fn generate<'g, S: Shape, E: Elem, R: IntoExp<'g, E>>(
        &'g self,
        sh: impl IntoExp<'g, S>,
        f: impl FnOnce(S::Exp<'g>) -> R,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        let sh = sh.into_node(g);
        let f = g.lam1::<S, E, R>(f);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_generate(g.raw(), sh, f) }, "generate")
    }

    /// `fill sh x`: every element is `x`.
    pub fn fill<'g, S: Shape, E: Elem>(
        &'g self,
        sh: impl IntoExp<'g, S>,
        x: impl IntoExp<'g, E>,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        let (sh, x) = (sh.into_node(g), x.into_node(g));
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_fill(g.raw(), sh, x) }, "fill")
    }

    /// `map f xs`.
    pub fn map<'g, S: Shape, A: Elem, B: Elem, R: IntoExp<'g, B>>(
        &'g self,
        f: impl FnOnce(A::Exp<'g>) -> R,
        xs: Acc<'g, S, A>,
    ) -> Acc<'g, S, B> {
        let g = self.core();
        let f = g.lam1::<A, B, R>(f);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_map(g.raw(), f, xs.node()) }, "map")
    }

    /// `zipWith f xs ys`: the extent is the intersection of theirs.
    pub fn zip_with<'g, S: Shape, A: Elem, B: Elem, C: Elem, R: IntoExp<'g, C>>(
        &'g self,
        f: impl FnOnce(A::Exp<'g>, B::Exp<'g>) -> R,
        xs: Acc<'g, S, A>,
        ys: Acc<'g, S, B>,
    ) -> Acc<'g, S, C> {
        let g = self.core();
        let f = g.lam2::<A, B, C, R>(f);
        let arrays = [xs.node(), ys.node()];
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_zipwith(g.raw(), f, 2, arrays.as_ptr()) }, "zipWith")
    }

    /// `zipWith3 f xs ys zs`.
    pub fn zip_with3<'g, S: Shape, A: Elem, B: Elem, C: Elem, D: Elem, R: IntoExp<'g, D>>(
        &'g self,
        f: impl FnOnce(A::Exp<'g>, B::Exp<'g>, C::Exp<'g>) -> R,
        xs: Acc<'g, S, A>,
        ys: Acc<'g, S, B>,
        zs: Acc<'g, S, C>,
    ) -> Acc<'g, S, D> {
        let g = self.core();
        let f = g.lam3::<A, B, C, D, R>(f);
        let arrays = [xs.node(), ys.node(), zs.node()];
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_zipwith(g.raw(), f, 3, arrays.as_ptr()) }, "zipWith3")
    }

    /// `backpermute sh p xs`: the element at `ix` is `xs ! p ix` (a gather).
    pub fn backpermute<'g, S2: Shape, S: Shape, E: Elem, R: IntoExp<'g, S>>(
        &'g self,
        sh: impl IntoExp<'g, S2>,
        p: impl FnOnce(S2::Exp<'g>) -> R,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S2, E> {
        let g = self.core();
        let sh = sh.into_node(g);
        let p = g.lam1::<S2, S, R>(p);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_backpermute(g.raw(), sh, p, xs.node()) }, "backpermute")
    }

    /// `reshape sh xs`: the same elements, a new shape of the same size
    /// (a runtime [`Error::Shape`](crate::Error::Shape) otherwise).
    pub fn reshape<'g, S2: Shape, S: Shape, E: Elem>(
        &'g self,
        sh: impl IntoExp<'g, S2>,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S2, E> {
        let g = self.core();
        let sh = sh.into_node(g);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_reshape(g.raw(), sh, xs.node()) }, "reshape")
    }

    /// `replicate spec xs`: one entry per dimension of the result: `All`
    /// keeps the next dimension of xs, an integer inserts a dimension of
    /// that extent (`[4.into(), Spec::All]` makes 4 rows of a vector).
    pub fn replicate<'g, const N: usize, S: Shape, E: Elem>(
        &'g self,
        spec: [Spec<'g>; N],
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, Ix<N>, E>
    where
        Ix<N>: Shape,
    {
        let g = self.core();
        let spec: Vec<Node> = spec.iter().map(|s| s.node(g)).collect();
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_replicate(g.raw(), N, spec.as_ptr(), xs.node()) }, "replicate")
    }

    /// `slice xs spec`: one entry per dimension of xs: `All` keeps it, an
    /// integer fixes the index; the result's rank `S2` is the number of
    /// `All` entries.
    pub fn slice<'g, S2: Shape, S: Shape, E: Elem>(
        &'g self,
        xs: Acc<'g, S, E>,
        spec: &[Spec<'g>],
    ) -> Acc<'g, S2, E> {
        let g = self.core();
        let spec: Vec<Node> = spec.iter().map(|s| s.node(g)).collect();
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_slice(g.raw(), xs.node(), spec.len(), spec.as_ptr()) }, "slice")
    }

    // --- §3.2 reductions --------------------------------------------------

    /// `fold f z xs`: reduces the innermost dimension; `z` is used once per
    /// row (an empty row gives `z`); `f` must be associative.
    pub fn fold<'g, S: Lower, E: Elem, R: IntoExp<'g, E>>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        z: impl IntoExp<'g, E>,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S::Lower, E> {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        let z = z.into_node(g);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_fold(g.raw(), f, z, xs.node()) }, "fold")
    }

    /// `fold1 f xs`: no seed; an empty row is a runtime error.
    pub fn fold1<'g, S: Lower, E: Elem, R: IntoExp<'g, E>>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S::Lower, E> {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_fold1(g.raw(), f, xs.node()) }, "fold1")
    }

    /// `foldSeg f z xs seg`: seg holds segment lengths (a vector of any
    /// integer type: the i32 row lengths of CSR code as well as i64); the
    /// innermost dimension of the result has one element per segment.  A
    /// negative length is an [`Error::Runtime`](crate::Error::Runtime)
    /// when the program runs.
    pub fn fold_seg<'g, S: Lower, E: Elem, R: IntoExp<'g, E>, I: Int>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        z: impl IntoExp<'g, E>,
        xs: Acc<'g, S, E>,
        seg: Acc<'g, DIM1, I>,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        let z = z.into_node(g);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_fold_seg(g.raw(), f, z, xs.node(), seg.node()) }, "foldSeg")
    }

    /// `foldSeg' f z xs offsets`: segments given by offsets (one more entry
    /// than segments, from 0 to the total).
    pub fn fold_seg_offsets<'g, S: Lower, E: Elem, R: IntoExp<'g, E>, I: Int>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        z: impl IntoExp<'g, E>,
        xs: Acc<'g, S, E>,
        offsets: Acc<'g, DIM1, I>,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        let z = z.into_node(g);
        // SAFETY: nodes of this graph.
        let n = unsafe { sys::acc_fold_seg_offsets(g.raw(), f, z, xs.node(), offsets.node()) };
        g.acc(n, "foldSeg'")
    }

    /// `fold1Seg f xs seg`: an empty segment is a runtime error.
    pub fn fold1_seg<'g, S: Lower, E: Elem, R: IntoExp<'g, E>, I: Int>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        xs: Acc<'g, S, E>,
        seg: Acc<'g, DIM1, I>,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_fold1_seg(g.raw(), f, xs.node(), seg.node()) }, "fold1Seg")
    }

    // --- §4 permute, expand, control, foreign -----------------------------

    /// `permute f defaults p xs`: starts from a copy of `defaults`; the
    /// element at `ix` of xs is combined into `p ix` as `f new old`, or
    /// dropped when `p ix` is [`Graph::ignore`].  `f` must be associative
    /// and commutative.
    pub fn permute<'g, S: Shape, S2: Shape, E: Elem, R: IntoExp<'g, E>, P: IntoExp<'g, S2>>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        defaults: Acc<'g, S2, E>,
        p: impl FnOnce(S::Exp<'g>) -> P,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S2, E> {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        let p = g.lam1::<S, S2, P>(p);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_permute(g.raw(), f, defaults.node(), p, xs.node()) }, "permute")
    }

    /// `permute' f defaults xs`: each element of xs is a pair (target
    /// index or ignore, value).
    pub fn permute_pairs<'g, S: Shape, S2: Shape, E: Elem, R: IntoExp<'g, E>>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        defaults: Acc<'g, S2, E>,
        xs: Acc<'g, S, (S2, E)>,
    ) -> Acc<'g, S2, E> {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_permute_pairs(g.raw(), f, defaults.node(), xs.node()) }, "permute'")
    }

    /// `stencil f boundary xs` with the neighbourhood `window` (ranks 1 to
    /// 3): the result has the extent of xs.
    ///
    /// ```
    /// # fn main() -> accel::Result<()> {
    /// use accel::{Acc, Boundary, Context, DIM1, W};
    /// let ctx = Context::new()?;
    /// let g = ctx.graph()?;
    /// let xs: Acc<DIM1, i32> = g.input();
    /// let sums = g.stencil(W::<3>, |[l, c, r]| l + c + r, Boundary::clamp(), xs);
    /// let out: accel::Array<i32> = g.compile(sums)?.run(&[1, 2, 3][..])?;
    /// assert_eq!(&out[..], &[4, 6, 8]);
    /// # Ok(()) }
    /// ```
    pub fn stencil<'g, S: Shape, E: Elem, B: Elem, Win: Window<S>, R: IntoExp<'g, B>>(
        &'g self,
        _window: Win,
        f: impl FnOnce(Win::Of<'g, E>) -> R,
        boundary: Boundary<'g, S, E>,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S, B> {
        let g = self.core();
        let p = g.param(window_type::<E, Win, S>(g.ctx()));
        let body = f(Win::from_node::<E>(g, NodeRef(p))).into_node(g);
        let f = g.lambda(&[p], body);
        let widths = Win::widths();
        // SAFETY: nodes of this graph; widths has rank(xs) entries.
        let n = unsafe {
            sys::acc_stencil(g.raw(), f, widths.as_ptr(), boundary.kind, boundary.arg, xs.node())
        };
        g.acc(n, "stencil")
    }

    /// `stencil2 f b1 xs b2 ys`: `f` receives both neighbourhoods; the
    /// result extent is the intersection.
    #[allow(clippy::too_many_arguments)]
    pub fn stencil2<'g, S, A, B, C, W1, W2, R>(
        &'g self,
        _w1: W1,
        _w2: W2,
        f: impl FnOnce(W1::Of<'g, A>, W2::Of<'g, B>) -> R,
        b1: Boundary<'g, S, A>,
        xs: Acc<'g, S, A>,
        b2: Boundary<'g, S, B>,
        ys: Acc<'g, S, B>,
    ) -> Acc<'g, S, C>
    where
        S: Shape,
        A: Elem,
        B: Elem,
        C: Elem,
        W1: Window<S>,
        W2: Window<S>,
        R: IntoExp<'g, C>,
    {
        let g = self.core();
        let p = g.param(window_type::<A, W1, S>(g.ctx()));
        let q = g.param(window_type::<B, W2, S>(g.ctx()));
        let body = f(W1::from_node::<A>(g, NodeRef(p)), W2::from_node::<B>(g, NodeRef(q))).into_node(g);
        let f = g.lambda(&[p, q], body);
        let (w1, w2) = (W1::widths(), W2::widths());
        // SAFETY: nodes of this graph; widths have rank entries.
        let n = unsafe {
            sys::acc_stencil2(
                g.raw(),
                f,
                w1.as_ptr(),
                b1.kind,
                b1.arg,
                xs.node(),
                w2.as_ptr(),
                b2.kind,
                b2.arg,
                ys.node(),
            )
        };
        g.acc(n, "stencil2")
    }

    /// `expand size get xs`: element x contributes `size x` results
    /// `get x 0 .. get x (size x - 1)`, concatenated in order.
    pub fn expand<'g, A: Elem, B: Elem, N: IntoExp<'g, i64>, R: IntoExp<'g, B>>(
        &'g self,
        size: impl FnOnce(A::Exp<'g>) -> N,
        get: impl FnOnce(A::Exp<'g>, Exp<'g, i64>) -> R,
        xs: Acc<'g, DIM1, A>,
    ) -> Acc<'g, DIM1, B> {
        let g = self.core();
        let size = g.lam1::<A, i64, N>(size);
        let get = g.lam2::<A, i64, B, R>(get);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_expand(g.raw(), size, get, xs.node()) }, "expand")
    }

    /// `acond c a b`: `a` when `c` holds, else `b`; only one is computed.
    pub fn acond<'g, T: Arrays<'g>>(&'g self, c: impl IntoExp<'g, bool>, a: T, b: T) -> T {
        let g = self.core();
        let c = c.into_node(g);
        let (a, b) = (a.to_node(g), b.to_node(g));
        // SAFETY: nodes of this graph.
        crate::graph::arrays_from(g, unsafe { sys::acc_acond(g.raw(), c, a, b) }, "acond")
    }

    /// `awhile cond body init`: applies `body` while `cond` holds (tested
    /// before the first application).
    pub fn awhile<'g, T: Arrays<'g>>(
        &'g self,
        cond: impl FnOnce(T) -> Acc<'g, DIM0, bool>,
        body: impl FnOnce(T) -> T,
        init: T,
    ) -> T {
        let g = self.core();
        let c = g.afun::<T, Acc<'g, DIM0, bool>>(cond, "awhile");
        let b = g.afun::<T, T>(body, "awhile");
        let i = init.to_node(g);
        // SAFETY: nodes of this graph.
        crate::graph::arrays_from(g, unsafe { sys::acc_awhile(g.raw(), c, b, i) }, "awhile")
    }

    /// `foreign name fallback arg`: the implementation registered under
    /// `name` for the backend in use when it accepts `arg`, else
    /// `fallback` (a closed array function).
    pub fn foreign<'g, A: Arrays<'g>, R: Arrays<'g>>(
        &'g self,
        name: &str,
        fallback: impl FnOnce(A) -> R,
        arg: A,
    ) -> R {
        let g = self.core();
        let f = g.afun::<A, R>(fallback, "foreign");
        let a = arg.to_node(g);
        let n = match CString::new(name) {
            // SAFETY: nodes of this graph and a C string.
            Ok(c) => unsafe { sys::acc_foreign(g.raw(), c.as_ptr(), f, a) },
            Err(_) => {
                g.fail(Error::InvalidArgument("foreign: the name contains a NUL byte".into()));
                ptr::null_mut()
            }
        };
        crate::graph::arrays_from(g, n, "foreign")
    }
}

macro_rules! scans {
    ($($(#[$doc:meta])* $name:ident, $seg:ident => $kind:ident;)*) => {
        impl<'c> Graph<'c> {
            $(
                $(#[$doc])*
                pub fn $name<'g, S: Lower, E: Elem, R: IntoExp<'g, E>>(
                    &'g self,
                    f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
                    z: impl IntoExp<'g, E>,
                    xs: Acc<'g, S, E>,
                ) -> Acc<'g, S, E> {
                    let z = z.into_node(self.core());
                    let n = self.scan_node(Scan::$kind, f, Some(z), xs.node(), None);
                    self.core().acc(n, stringify!($name))
                }
                /// The segmented form over segment lengths `seg`.
                pub fn $seg<'g, S: Lower, E: Elem, R: IntoExp<'g, E>, I: Int>(
                    &'g self,
                    f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
                    z: impl IntoExp<'g, E>,
                    xs: Acc<'g, S, E>,
                    seg: Acc<'g, DIM1, I>,
                ) -> Acc<'g, S, E> {
                    let z = z.into_node(self.core());
                    let n = self.scan_node(Scan::$kind, f, Some(z), xs.node(), Some(seg.node()));
                    self.core().acc(n, stringify!($seg))
                }
            )*
        }
    };
}
scans! {
    /// `scanl f z xs`: n+1 results per row, starting with z; computes `f acc x`.
    scanl, scanl_seg => L;
    /// `scanr f z xs`: n+1 results, right to left, ending with z; computes `f x acc`.
    scanr, scanr_seg => R;
    /// `prescanl f z xs`: n results, exclusive.
    prescanl, prescanl_seg => PreL;
    /// `postscanl f z xs`: n results, `map (z `f`) (scanl1 f xs)`.
    postscanl, postscanl_seg => PostL;
    /// `prescanr f z xs`: n results, exclusive, right to left.
    prescanr, prescanr_seg => PreR;
    /// `postscanr f z xs`: n results, right to left.
    postscanr, postscanr_seg => PostR;
}

macro_rules! scans1 {
    ($($(#[$doc:meta])* $name:ident, $seg:ident => $kind:ident;)*) => {
        impl<'c> Graph<'c> {
            $(
                $(#[$doc])*
                pub fn $name<'g, S: Lower, E: Elem, R: IntoExp<'g, E>>(
                    &'g self,
                    f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
                    xs: Acc<'g, S, E>,
                ) -> Acc<'g, S, E> {
                    let n = self.scan_node(Scan::$kind, f, None, xs.node(), None);
                    self.core().acc(n, stringify!($name))
                }
                /// The segmented form over segment lengths `seg`.
                pub fn $seg<'g, S: Lower, E: Elem, R: IntoExp<'g, E>, I: Int>(
                    &'g self,
                    f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
                    xs: Acc<'g, S, E>,
                    seg: Acc<'g, DIM1, I>,
                ) -> Acc<'g, S, E> {
                    let n = self.scan_node(Scan::$kind, f, None, xs.node(), Some(seg.node()));
                    self.core().acc(n, stringify!($seg))
                }
            )*
        }
    };
}
scans1! {
    /// `scanl1 f xs`: n results, inclusive; the rows must be non-empty.
    scanl1, scanl1_seg => L1;
    /// `scanr1 f xs`: n results, inclusive, right to left.
    scanr1, scanr1_seg => R1;
}

macro_rules! scans_prime {
    ($($(#[$doc:meta])* $name:ident, $seg:ident => $kind:ident;)*) => {
        impl<'c> Graph<'c> {
            $(
                $(#[$doc])*
                pub fn $name<'g, S: Lower, E: Elem, R: IntoExp<'g, E>>(
                    &'g self,
                    f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
                    z: impl IntoExp<'g, E>,
                    xs: Acc<'g, S, E>,
                ) -> (Acc<'g, S, E>, Acc<'g, S::Lower, E>) {
                    let z = z.into_node(self.core());
                    let n = self.scan_node(Scan::$kind, f, Some(z), xs.node(), None);
                    crate::graph::arrays_from(self.core(), n, stringify!($name))
                }
                /// The segmented form over segment lengths `seg`: (S
                /// elements, one total per segment).
                pub fn $seg<'g, S: Lower, E: Elem, R: IntoExp<'g, E>, I: Int>(
                    &'g self,
                    f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
                    z: impl IntoExp<'g, E>,
                    xs: Acc<'g, S, E>,
                    seg: Acc<'g, DIM1, I>,
                ) -> (Acc<'g, S, E>, Acc<'g, S, E>) {
                    let z = z.into_node(self.core());
                    let n = self.scan_node(Scan::$kind, f, Some(z), xs.node(), Some(seg.node()));
                    crate::graph::arrays_from(self.core(), n, stringify!($seg))
                }
            )*
        }
    };
}
scans_prime! {
    /// `scanl' f z xs`: (all but the last of scanl, the last: one total per row).
    scanl_prime, scanl_prime_seg => LPrime;
    /// `scanr' f z xs`: (all but the first of scanr, the first: one total per row).
    scanr_prime, scanr_prime_seg => RPrime;
}
