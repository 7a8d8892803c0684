//! Graphs: the embedded builder (DESIGN.md §10).  A [`Graph`] owns the
//! nodes built in it; [`Acc`] is an array term and [`Exp`] a scalar term
//! of the graph.  Rust closures given to the array operations are traced
//! once, into lambdas of the graph.
use std::cell::RefCell;
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use accel_sys as sys;

use crate::context::Context;
use crate::elem::{elem_name, type_name, Elem, Ix, NodeRef, Scalar, Shape, DIM0};
use crate::error::{check, Error, Result};
use crate::exp::{Exp, IntoExp, Node};
use crate::program::Program;

/// The graph behind [`Exp`] and [`Acc`] (reached through [`Graph`]).
#[doc(hidden)]
pub struct GraphCore {
    raw: *mut sys::acc_graph,
    ctx: *mut sys::acc_context,
    /// The first error the Rust side found (a result of another rank than
    /// its Rust type says); reported by `compile` unless accel's graph had
    /// failed first.
    error: RefCell<Option<Error>>,
}

impl GraphCore {
    pub(crate) fn raw(&self) -> *mut sys::acc_graph {
        self.raw
    }
    pub(crate) fn ctx(&self) -> *mut sys::acc_context {
        self.ctx
    }

    /// Records the first error, unless accel's graph failed before.
    pub(crate) fn fail(&self, e: Error) {
        // SAFETY: a live graph.
        let ok = unsafe { sys::acc_graph_status(self.raw) } == sys::ACC_OK;
        let mut slot = self.error.borrow_mut();
        if ok && slot.is_none() {
            *slot = Some(e);
        }
    }

    pub(crate) fn constant<T: Scalar>(&self, v: T) -> Exp<'_, T> {
        Exp::wrap(self, v.scalar_const(self))
    }
    pub(crate) fn get(&self, n: Node, i: usize) -> Node {
        // SAFETY: a node of this graph (NULL fails the graph).
        unsafe { sys::acc_get(self.raw, n, i) }
    }
    pub(crate) fn tuple(&self, items: &[Node]) -> Node {
        // SAFETY: nodes of this graph.
        unsafe { sys::acc_tuple(self.raw, items.len(), items.as_ptr()) }
    }
    pub(crate) fn param(&self, t: *const sys::acc_type) -> Node {
        // SAFETY: a type of this graph's context (NULL fails the graph).
        unsafe { sys::acc_param(self.raw, t) }
    }
    pub(crate) fn lambda(&self, params: &[Node], body: Node) -> Node {
        // SAFETY: parameters and body of this graph.
        unsafe { sys::acc_lambda(self.raw, params.len(), params.as_ptr(), body) }
    }

    /// Traces `f` as a scalar lambda of one parameter.
    pub(crate) fn lam1<'g, A: Elem, B: Elem, R: IntoExp<'g, B>>(
        &'g self,
        f: impl FnOnce(A::Exp<'g>) -> R,
    ) -> Node {
        let p = self.param(crate::elem::ty::<A>(self.ctx));
        let body = f(crate::elem::from_node::<A>(self, p)).into_node(self);
        self.lambda(&[p], body)
    }
    /// Traces `f` as a scalar lambda of two parameters.
    pub(crate) fn lam2<'g, A: Elem, B: Elem, C: Elem, R: IntoExp<'g, C>>(
        &'g self,
        f: impl FnOnce(A::Exp<'g>, B::Exp<'g>) -> R,
    ) -> Node {
        let p = self.param(crate::elem::ty::<A>(self.ctx));
        let q = self.param(crate::elem::ty::<B>(self.ctx));
        let body = f(crate::elem::from_node::<A>(self, p), crate::elem::from_node::<B>(self, q)).into_node(self);
        self.lambda(&[p, q], body)
    }
    /// Traces `f` as a scalar lambda of three parameters.
    pub(crate) fn lam3<'g, A: Elem, B: Elem, C: Elem, D: Elem, R: IntoExp<'g, D>>(
        &'g self,
        f: impl FnOnce(A::Exp<'g>, B::Exp<'g>, C::Exp<'g>) -> R,
    ) -> Node {
        let p = self.param(crate::elem::ty::<A>(self.ctx));
        let q = self.param(crate::elem::ty::<B>(self.ctx));
        let r = self.param(crate::elem::ty::<C>(self.ctx));
        let args = (crate::elem::from_node::<A>(self, p), crate::elem::from_node::<B>(self, q), crate::elem::from_node::<C>(self, r));
        let body = f(args.0, args.1, args.2).into_node(self);
        self.lambda(&[p, q, r], body)
    }
    /// Traces `f` as an array function of one parameter (awhile, foreign
    /// fallbacks).
    pub(crate) fn afun<'g, A: Arrays<'g>, R: Arrays<'g>>(
        &'g self,
        f: impl FnOnce(A) -> R,
        op: &str,
    ) -> Node {
        let p = self.param(A::arrays_type(self));
        let body = f(A::from_node(self, NodeRef(p), op)).to_node(self);
        self.lambda(&[p], body)
    }

    pub(crate) fn acc<S: Shape, E: Elem>(&self, n: Node, op: &str) -> Acc<'_, S, E> {
        Acc::checked(self, n, op)
    }
}

/// A graph (`acc_graph`): the nodes of the programs being built.  Made by
/// [`Context::graph`]; it borrows the context and is freed in `Drop`
/// (programs compiled from it keep their own copy of what they need).
///
/// The builder follows LANGUAGE.md: inputs ([`Graph::input`]), scalar
/// expressions ([`Exp`], with operators), and the array operations of §3
/// as methods taking Rust closures, which are traced once into lambdas:
///
/// ```
/// # fn main() -> accel::Result<()> {
/// use accel::{Acc, Array, Context, DIM1};
/// let ctx = Context::new()?;
/// let g = ctx.graph()?;
/// let xs: Acc<DIM1, f32> = g.input();
/// let ys = g.map(|x| x * 2.0 + 1.0, xs);
/// let program = g.compile(ys)?;
/// let out: Array<f32> = program.run(&[1.0f32, 2.0, 3.0][..])?;
/// assert_eq!(&out[..], &[3.0, 5.0, 7.0]);
/// # Ok(()) }
/// ```
///
/// Builder errors are sticky, as in accel: a call that does not fit (a
/// zipWith of mismatched element types, ...) makes the graph fail, later
/// calls build nothing, and [`Graph::compile`] returns the first error,
/// naming the operation.
///
/// **Threads:** neither `Send` nor `Sync` (it borrows the context, which
/// one thread at a time uses, and docs/ABI.md forbids calls into one
/// graph from several threads).
pub struct Graph<'c> {
    core: GraphCore,
    ctx: &'c Context,
}

impl<'c> Graph<'c> {
    pub(crate) fn new(ctx: &'c Context) -> Result<Graph<'c>> {
        let mut g = ptr::null_mut();
        // SAFETY: a live context; g is written.
        check(unsafe { sys::acc_graph_create(ctx.raw(), &mut g) })?;
        let raw = NonNull::new(g).ok_or_else(|| Error::Internal("no graph".into()))?;
        Ok(Graph {
            core: GraphCore { raw: raw.as_ptr(), ctx: ctx.raw(), error: RefCell::new(None) },
            ctx,
        })
    }

    pub(crate) fn core(&self) -> &GraphCore {
        &self.core
    }

    /// The graph's first error, if any.
    pub fn status(&self) -> Result<()> {
        if let Some(e) = self.core.error.borrow().clone() {
            return Err(e);
        }
        // SAFETY: a live graph; its message is copied at once.
        unsafe {
            let st = sys::acc_graph_status(self.core.raw);
            if st == sys::ACC_OK {
                Ok(())
            } else {
                Err(Error::from_status(st, crate::error::static_str(sys::acc_graph_last_error(self.core.raw))))
            }
        }
    }

    /// Compiles `results` (an [`Acc`], or a tuple of them: one output
    /// each, in order) into a program for the context's backend.  The
    /// program's inputs are the graph's [`Graph::input`]s in creation
    /// order.  Reports the graph's first builder error.
    pub fn compile<'g>(&'g self, results: impl Arrays<'g>) -> Result<Program> {
        if let Some(e) = self.core.error.borrow().clone() {
            return Err(e);
        }
        let mut nodes = Vec::new();
        results.push_results(&mut nodes);
        let mut p = ptr::null_mut();
        // SAFETY: a live context and graph, result nodes of this graph.
        check(unsafe {
            sys::acc_compile(self.core.ctx, self.core.raw, nodes.len(), nodes.as_ptr(), &mut p)
        })?;
        Program::from_raw(p, self.ctx)
    }

    /// A program input: an array of shape `S` and element type `E`.
    /// Inputs are numbered in creation order, which is the order
    /// [`Program::run`] takes them in.
    pub fn input<S: Shape, E: Elem>(&self) -> Acc<'_, S, E> {
        let t = crate::elem::ty::<E>(self.core.ctx);
        // SAFETY: a live graph and a type of its context (NULL fails it).
        let n = unsafe { sys::acc_input(self.core.raw, t, S::RANK as i32) };
        self.core.acc(n, "input")
    }

    /// A scalar program input (a rank-0 array input, read with `the`).
    pub fn input_scalar<E: Elem>(&self) -> E::Exp<'_> {
        self.input::<DIM0, E>().the()
    }

    /// A constant: a scalar, a tuple of constants, an index.
    pub fn constant<'g, E: Elem>(&'g self, v: impl IntoExp<'g, E>) -> E::Exp<'g> {
        crate::elem::from_node::<E>(&self.core, v.into_node(&self.core))
    }

    /// `if c then a else b`: only the chosen branch is evaluated.
    pub fn cond<'g, E: Elem>(
        &'g self,
        c: impl IntoExp<'g, bool>,
        a: impl IntoExp<'g, E>,
        b: impl IntoExp<'g, E>,
    ) -> E::Exp<'g> {
        let g = &self.core;
        let (c, a, b) = (c.into_node(g), a.into_node(g), b.into_node(g));
        // SAFETY: nodes of this graph.
        crate::elem::from_node::<E>(g, unsafe { sys::acc_cond(g.raw, c, a, b) })
    }

    /// The scalar loop `while cond body init`: starting from `init`, apply
    /// `body` while `cond` holds (tested first).
    pub fn while_loop<'g, E: Elem, C: IntoExp<'g, bool>, B: IntoExp<'g, E>>(
        &'g self,
        cond: impl FnOnce(E::Exp<'g>) -> C,
        body: impl FnOnce(E::Exp<'g>) -> B,
        init: impl IntoExp<'g, E>,
    ) -> E::Exp<'g> {
        let g = &self.core;
        let c = g.lam1::<E, bool, C>(cond);
        let b = g.lam1::<E, E, B>(body);
        let i = init.into_node(g);
        // SAFETY: nodes of this graph.
        crate::elem::from_node::<E>(g, unsafe { sys::acc_while(g.raw, c, b, i) })
    }

    /// The `ignore` target index of rank `N`: a `permute` target function
    /// that returns it drops the element.
    pub fn ignore<const N: usize>(&self) -> [Exp<'_, i64>; N] {
        // SAFETY: a live graph.
        let n = unsafe { sys::acc_ignore(self.core.raw, N as i32) };
        crate::elem::from_node::<Ix<N>>(&self.core, n)
    }

    /// A scalar foreign function (LANGUAGE.md §3.9): the C function
    /// registered under `name` for the backend in use
    /// ([`Context::register_c_function`]), else `fallback`.
    pub fn foreign_exp<'g, A: Elem, B: Elem, R: IntoExp<'g, B>>(
        &'g self,
        name: &str,
        fallback: impl FnOnce(A::Exp<'g>) -> R,
        arg: impl IntoExp<'g, A>,
    ) -> B::Exp<'g> {
        let g = &self.core;
        let f = g.lam1::<A, B, R>(fallback);
        let a = arg.into_node(g);
        let n = match std::ffi::CString::new(name) {
            // SAFETY: nodes of this graph and a C string.
            Ok(c) => unsafe { sys::acc_foreign_exp(g.raw, c.as_ptr(), f, a) },
            Err(_) => {
                g.fail(Error::InvalidArgument("foreignExp: the name contains a NUL byte".into()));
                ptr::null_mut()
            }
        };
        crate::elem::from_node::<B>(g, n)
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        // SAFETY: the graph is live and no node of it outlives this borrow.
        unsafe { sys::acc_graph_free(self.core.raw) }
    }
}

impl std::fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").field("status", &self.status()).finish()
    }
}

/// An array term of the graph `'g`: an array of shape `S` ([`DIM0`] ...
/// [`DIM8`](crate::DIM8)) and element type `E`.  Like [`Exp`] it is a
/// reference to a node: copying it shares the value.
pub struct Acc<'g, S, E> {
    g: &'g GraphCore,
    node: Node,
    _t: PhantomData<fn() -> (S, E)>,
}

impl<S, E> Clone for Acc<'_, S, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S, E> Copy for Acc<'_, S, E> {}

impl<S, E> std::fmt::Debug for Acc<'_, S, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Acc").field("node", &self.node).finish()
    }
}

impl<'g, S: Shape, E: Elem> Acc<'g, S, E> {
    /// Wraps a node accel made for `op`, checking that it has the rank and
    /// element type the Rust type says (a mismatch fails the graph).
    pub(crate) fn checked(g: &'g GraphCore, node: Node, op: &str) -> Self {
        if !node.is_null() {
            // SAFETY: a node of this graph; accel answers 0/NULL for what
            // does not apply.
            let (kind, rank, elem) = unsafe {
                let t = sys::acc_node_type(node);
                (sys::acc_type_get_kind(t), sys::acc_type_get_rank(t), sys::acc_type_get_elem(t))
            };
            if kind != sys::ACC_TYPE_ARRAY || rank != S::RANK as i32 || !crate::elem::matches::<E>(elem) {
                g.fail(Error::Type(format!(
                    "{op}: the result is an array of rank {rank} of {}, the Rust type says rank {} of {}",
                    type_name(elem),
                    S::RANK,
                    elem_name::<E>()
                )));
            }
        }
        Acc { g, node, _t: PhantomData }
    }
    pub(crate) fn node(self) -> Node {
        self.node
    }

    /// `xs ! ix`: the element at index `ix` (a runtime error when out of
    /// range).
    pub fn at(self, ix: impl IntoExp<'g, S>) -> E::Exp<'g> {
        let i = ix.into_node(self.g);
        // SAFETY: nodes of this graph.
        crate::elem::from_node::<E>(self.g, unsafe { sys::acc_read(self.g.raw, self.node, i) })
    }
    /// `xs !! k`: the element at row-major position `k`.
    pub fn at_linear(self, k: impl IntoExp<'g, i64>) -> E::Exp<'g> {
        let k = k.into_node(self.g);
        // SAFETY: nodes of this graph.
        crate::elem::from_node::<E>(self.g, unsafe { sys::acc_read_linear(self.g.raw, self.node, k) })
    }
    /// `shape xs`: the extents, outermost first.
    pub fn shape(self) -> S::Exp<'g> {
        // SAFETY: a node of this graph.
        crate::elem::from_node::<S>(self.g, unsafe { sys::acc_shape(self.g.raw, self.node) })
    }
    /// `size xs`: the number of elements.
    pub fn size(self) -> Exp<'g, i64> {
        // SAFETY: a node of this graph.
        Exp::wrap(self.g, unsafe { sys::acc_size(self.g.raw, self.node) })
    }
}

impl<'g, S: crate::elem::Lower, E: Elem> Acc<'g, S, E> {
    /// `length xs`: the innermost extent (a vector's number of elements).
    pub fn length(self) -> Exp<'g, i64> {
        // SAFETY: a node of this graph.
        Exp::wrap(self.g, unsafe { sys::acc_length(self.g.raw, self.node) })
    }
}

impl<'g, E: Elem> Acc<'g, DIM0, E> {
    /// `the xs`: the value of a Scalar.
    pub fn the(self) -> E::Exp<'g> {
        // SAFETY: a node of this graph.
        crate::elem::from_node::<E>(self.g, unsafe { sys::acc_the(self.g.raw, self.node) })
    }
}

/// Wraps node `n` as the array terms `T`.
pub(crate) fn arrays_from<'g, T: Arrays<'g>>(g: &'g GraphCore, n: Node, op: &str) -> T {
    T::from_node(g, NodeRef(n), op)
}

/// Array terms: an [`Acc`], or a tuple of array terms.  Results of
/// [`Graph::compile`], the state of [`Graph::awhile`], the branches of
/// [`Graph::acond`], the arguments and results of [`Graph::foreign`].
pub trait Arrays<'g>: Copy {
    #[doc(hidden)]
    fn arrays_type(g: &'g GraphCore) -> *const sys::acc_type;
    #[doc(hidden)]
    fn to_node(self, g: &'g GraphCore) -> Node;
    #[doc(hidden)]
    fn from_node(g: &'g GraphCore, n: NodeRef, op: &str) -> Self;
    #[doc(hidden)]
    fn push_results(self, out: &mut Vec<Node>);
}

impl<'g, S: Shape, E: Elem> Arrays<'g> for Acc<'g, S, E> {
    fn arrays_type(g: &'g GraphCore) -> *const sys::acc_type {
        // SAFETY: a live context and an element type of it.
        unsafe { sys::acc_type_array(g.ctx, crate::elem::ty::<E>(g.ctx), S::RANK as i32) }
    }
    fn to_node(self, _: &'g GraphCore) -> Node {
        self.node
    }
    fn from_node(g: &'g GraphCore, n: NodeRef, op: &str) -> Self {
        Acc::checked(g, n.0, op)
    }
    fn push_results(self, out: &mut Vec<Node>) {
        out.push(self.node);
    }
}

macro_rules! arrays_tuple {
    ($($t:ident $i:tt),+) => {
        impl<'g, $($t: Arrays<'g>),+> Arrays<'g> for ($($t,)+) {
            fn arrays_type(g: &'g GraphCore) -> *const sys::acc_type {
                let fields = [$($t::arrays_type(g)),+];
                // SAFETY: array types of this context.
                unsafe { sys::acc_type_tuple(g.ctx, fields.len(), fields.as_ptr()) }
            }
            fn to_node(self, g: &'g GraphCore) -> Node {
                g.tuple(&[$(self.$i.to_node(g)),+])
            }
            fn from_node(g: &'g GraphCore, n: NodeRef, op: &str) -> Self {
                ($($t::from_node(g, NodeRef(g.get(n.0, $i)), op),)+)
            }
            fn push_results(self, out: &mut Vec<Node>) {
                $(self.$i.push_results(out);)+
            }
        }
    };
}
arrays_tuple!(A 0, B 1);
arrays_tuple!(A 0, B 1, C 2);
arrays_tuple!(A 0, B 1, C 2, D 3);
arrays_tuple!(A 0, B 1, C 2, D 3, E 4);
arrays_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
arrays_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
arrays_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
