//! The standard library of LANGUAGE.md §3.1, §3.2 and §3.8.1 (accel.h's
//! "Standard library"; docs/STDLIB.md spells each out), as methods of
//! [`Graph`].
use accel_sys as sys;

use crate::elem::{Elem, Float, Ix, Lower, Num, Scalar, Shape, DIM0, DIM1, DIM2};
use crate::exp::{Exp, IntoExp, Node};
use crate::graph::{Acc, Graph, GraphCore};

/// Element types that index an array of shape `S` in `gather` and
/// `scatter`: `i64` positions for a vector, [`Ix<N>`] for rank N.
pub trait IndexOf<S: Shape>: Elem {}
impl IndexOf<DIM1> for i64 {}
impl<const N: usize> IndexOf<Ix<N>> for Ix<N> where Ix<N>: Shape {}

type Op1 = unsafe extern "C" fn(*mut sys::acc_graph, Node) -> Node;
type Op2 = unsafe extern "C" fn(*mut sys::acc_graph, Node, Node) -> Node;

fn call1<'g, S: Shape, E: Elem>(g: &'g GraphCore, op: Op1, a: Node, name: &str) -> Acc<'g, S, E> {
    // SAFETY: a node of this graph (NULL fails the graph).
    g.acc(unsafe { op(g.raw(), a) }, name)
}

fn call2<'g, S: Shape, E: Elem>(g: &'g GraphCore, op: Op2, a: Node, b: Node, name: &str) -> Acc<'g, S, E> {
    // SAFETY: nodes of this graph.
    g.acc(unsafe { op(g.raw(), a, b) }, name)
}

impl<'c> Graph<'c> {
    // --- reductions of the innermost dimension ----------------------------

    /// `sum xs = fold (+) 0 xs`.
    pub fn sum<'g, S: Lower, E: Num>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S::Lower, E> {
        call1(self.core(), sys::acc_sum, xs.node(), "sum")
    }
    /// `product xs = fold (*) 1 xs`.
    pub fn product<'g, S: Lower, E: Num>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S::Lower, E> {
        call1(self.core(), sys::acc_product, xs.node(), "product")
    }
    /// `maximum xs = fold1 max xs` (an empty row is a runtime error).
    pub fn maximum<'g, S: Lower, E: Scalar>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S::Lower, E> {
        call1(self.core(), sys::acc_maximum, xs.node(), "maximum")
    }
    /// `minimum xs = fold1 min xs`.
    pub fn minimum<'g, S: Lower, E: Scalar>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S::Lower, E> {
        call1(self.core(), sys::acc_minimum, xs.node(), "minimum")
    }
    /// `and xs = fold (&&) True xs`.
    pub fn and<'g, S: Lower>(&'g self, xs: Acc<'g, S, bool>) -> Acc<'g, S::Lower, bool> {
        call1(self.core(), sys::acc_and, xs.node(), "and")
    }
    /// `or xs = fold (||) False xs`.
    pub fn or<'g, S: Lower>(&'g self, xs: Acc<'g, S, bool>) -> Acc<'g, S::Lower, bool> {
        call1(self.core(), sys::acc_or, xs.node(), "or")
    }
    /// `all p xs = and (map p xs)`.
    pub fn all<'g, S: Lower, E: Elem, R: IntoExp<'g, bool>>(
        &'g self,
        p: impl FnOnce(E::Exp<'g>) -> R,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S::Lower, bool> {
        let p = self.core().lam1::<E, bool, R>(p);
        call2(self.core(), sys::acc_all_of, p, xs.node(), "all")
    }
    /// `any p xs = or (map p xs)`.
    pub fn any<'g, S: Lower, E: Elem, R: IntoExp<'g, bool>>(
        &'g self,
        p: impl FnOnce(E::Exp<'g>) -> R,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S::Lower, bool> {
        let p = self.core().lam1::<E, bool, R>(p);
        call2(self.core(), sys::acc_any, p, xs.node(), "any")
    }
    /// `foldAll f z xs`: every element reduced to a Scalar.
    pub fn fold_all<'g, S: Shape, E: Elem, R: IntoExp<'g, E>>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        z: impl IntoExp<'g, E>,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, DIM0, E> {
        let g = self.core();
        let f = g.lam2::<E, E, E, R>(f);
        let z = z.into_node(g);
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_fold_all(g.raw(), f, z, xs.node()) }, "foldAll")
    }
    /// `fold1All f xs` (an empty array is a runtime error).
    pub fn fold1_all<'g, S: Shape, E: Elem, R: IntoExp<'g, E>>(
        &'g self,
        f: impl FnOnce(E::Exp<'g>, E::Exp<'g>) -> R,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, DIM0, E> {
        let f = self.core().lam2::<E, E, E, R>(f);
        call2(self.core(), sys::acc_fold1_all, f, xs.node(), "fold1All")
    }

    // --- producers ---------------------------------------------------------

    /// `enumFromN sh x`: x, x+1, ... in row-major order.
    pub fn enum_from_n<'g, S: Shape, E: Num>(
        &'g self,
        sh: impl IntoExp<'g, S>,
        x: impl IntoExp<'g, E>,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        let (sh, x) = (sh.into_node(g), x.into_node(g));
        call2(g, sys::acc_enum_from_n, sh, x, "enumFromN")
    }
    /// `enumFromStepN sh x step`: x + k * step at position k.
    pub fn enum_from_step_n<'g, S: Shape, E: Num>(
        &'g self,
        sh: impl IntoExp<'g, S>,
        x: impl IntoExp<'g, E>,
        step: impl IntoExp<'g, E>,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        let (sh, x, step) = (sh.into_node(g), x.into_node(g), step.into_node(g));
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_enum_from_step_n(g.raw(), sh, x, step) }, "enumFromStepN")
    }
    /// `zip xs ys`.
    pub fn zip<'g, S: Shape, A: Elem, B: Elem>(
        &'g self,
        xs: Acc<'g, S, A>,
        ys: Acc<'g, S, B>,
    ) -> Acc<'g, S, (A, B)> {
        call2(self.core(), sys::acc_zip, xs.node(), ys.node(), "zip")
    }
    /// `unzip xs` of pairs.
    pub fn unzip<'g, S: Shape, A: Elem, B: Elem>(
        &'g self,
        xs: Acc<'g, S, (A, B)>,
    ) -> (Acc<'g, S, A>, Acc<'g, S, B>) {
        let g = self.core();
        // SAFETY: a node of this graph.
        crate::graph::arrays_from(g, unsafe { sys::acc_unzip(g.raw(), xs.node()) }, "unzip")
    }
    /// `indexed xs`: every element paired with its index.
    pub fn indexed<'g, S: Shape, E: Elem>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S, (S, E)> {
        call1(self.core(), sys::acc_indexed, xs.node(), "indexed")
    }

    // --- structural ----------------------------------------------------------

    /// `reverse xs`: each row of the innermost dimension reversed.
    pub fn reverse<'g, S: Lower, E: Elem>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S, E> {
        call1(self.core(), sys::acc_reverse, xs.node(), "reverse")
    }
    /// `transpose xs`: the two innermost dimensions swapped (rank >= 2).
    pub fn transpose<'g, S: Lower, E: Elem>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S, E>
    where
        S::Lower: Lower,
    {
        call1(self.core(), sys::acc_transpose, xs.node(), "transpose")
    }
    /// `flatten xs`: the elements in row-major order.
    pub fn flatten<'g, S: Shape, E: Elem>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, DIM1, E> {
        call1(self.core(), sys::acc_flatten, xs.node(), "flatten")
    }
    /// `take n xs`: the first n elements of each row (n clamped).
    pub fn take<'g, S: Lower, E: Elem>(&'g self, n: impl IntoExp<'g, i64>, xs: Acc<'g, S, E>) -> Acc<'g, S, E> {
        let n = n.into_node(self.core());
        call2(self.core(), sys::acc_take, n, xs.node(), "take")
    }
    /// `drop n xs`: all but the first n elements of each row.
    pub fn drop<'g, S: Lower, E: Elem>(&'g self, n: impl IntoExp<'g, i64>, xs: Acc<'g, S, E>) -> Acc<'g, S, E> {
        let n = n.into_node(self.core());
        call2(self.core(), sys::acc_drop, n, xs.node(), "drop")
    }
    /// `init xs`: all but the last element of each row.
    pub fn init<'g, S: Lower, E: Elem>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S, E> {
        call1(self.core(), sys::acc_init, xs.node(), "init")
    }
    /// `tail xs`: all but the first element of each row.
    pub fn tail<'g, S: Lower, E: Elem>(&'g self, xs: Acc<'g, S, E>) -> Acc<'g, S, E> {
        call1(self.core(), sys::acc_tail, xs.node(), "tail")
    }
    /// `slit i n xs = take n (drop i xs)`.
    pub fn slit<'g, S: Lower, E: Elem>(
        &'g self,
        i: impl IntoExp<'g, i64>,
        n: impl IntoExp<'g, i64>,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        let (i, n) = (i.into_node(g), n.into_node(g));
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_slit(g.raw(), i, n, xs.node()) }, "slit")
    }
    /// `xs ++ ys` on the innermost dimension (other extents intersected).
    pub fn concat<'g, S: Lower, E: Elem>(&'g self, xs: Acc<'g, S, E>, ys: Acc<'g, S, E>) -> Acc<'g, S, E> {
        call2(self.core(), sys::acc_concat, xs.node(), ys.node(), "++")
    }

    // --- gather, scatter, filtering ------------------------------------------

    /// `gather indices xs`: the element at ix is `xs ! (indices ! ix)`.
    pub fn gather<'g, S2: Shape, S: Shape, I: IndexOf<S>, E: Elem>(
        &'g self,
        indices: Acc<'g, S2, I>,
        xs: Acc<'g, S, E>,
    ) -> Acc<'g, S2, E> {
        call2(self.core(), sys::acc_gather, indices.node(), xs.node(), "gather")
    }
    /// `scatter to defaults xs`: a copy of defaults where the element of xs
    /// at ix is written at `to ! ix`.
    pub fn scatter<'g, S2: Shape, S: Shape, I: IndexOf<S>, E: Elem>(
        &'g self,
        to: Acc<'g, S2, I>,
        defaults: Acc<'g, S, E>,
        xs: Acc<'g, S2, E>,
    ) -> Acc<'g, S, E> {
        let g = self.core();
        // SAFETY: nodes of this graph.
        g.acc(unsafe { sys::acc_scatter(g.raw(), to.node(), defaults.node(), xs.node()) }, "scatter")
    }
    /// `compact keep xs`: (the kept elements as a vector, how many were
    /// kept per row).
    pub fn compact<'g, S: Lower, E: Elem>(
        &'g self,
        keep: Acc<'g, S, bool>,
        xs: Acc<'g, S, E>,
    ) -> (Acc<'g, DIM1, E>, Acc<'g, S::Lower, i64>) {
        let g = self.core();
        // SAFETY: nodes of this graph.
        crate::graph::arrays_from(g, unsafe { sys::acc_compact(g.raw(), keep.node(), xs.node()) }, "compact")
    }
    /// `filter p xs = compact (map p xs) xs`.
    pub fn filter<'g, S: Lower, E: Elem, R: IntoExp<'g, bool>>(
        &'g self,
        p: impl FnOnce(E::Exp<'g>) -> R,
        xs: Acc<'g, S, E>,
    ) -> (Acc<'g, DIM1, E>, Acc<'g, S::Lower, i64>) {
        let g = self.core();
        let p = g.lam1::<E, bool, R>(p);
        // SAFETY: nodes of this graph.
        crate::graph::arrays_from(g, unsafe { sys::acc_filter(g.raw(), p, xs.node()) }, "filter")
    }

    // --- linear algebra and Fourier transforms -------------------------------

    /// `dot xs ys` (`blas.dot` through the cblas plugin where it is loaded,
    /// the pure fallback elsewhere).
    pub fn dot<'g, S: Lower, E: Num>(&'g self, xs: Acc<'g, S, E>, ys: Acc<'g, S, E>) -> Acc<'g, S::Lower, E> {
        call2(self.core(), sys::acc_dot, xs.node(), ys.node(), "dot")
    }
    /// `gemv a x`: the matrix-vector product (`blas.gemv`).
    pub fn gemv<'g, E: Num>(&'g self, a: Acc<'g, DIM2, E>, x: Acc<'g, DIM1, E>) -> Acc<'g, DIM1, E> {
        call2(self.core(), sys::acc_gemv, a.node(), x.node(), "gemv")
    }
    /// `gemm a b`: the matrix product (`blas.gemm`).
    pub fn gemm<'g, E: Num>(&'g self, a: Acc<'g, DIM2, E>, b: Acc<'g, DIM2, E>) -> Acc<'g, DIM2, E> {
        call2(self.core(), sys::acc_gemm, a.node(), b.node(), "gemm")
    }
    /// `fft xs` of (re, im) pairs over every dimension (`fft.forward`).
    pub fn fft<'g, S: Lower, F: Float>(&'g self, xs: Acc<'g, S, (F, F)>) -> Acc<'g, S, (F, F)> {
        call1(self.core(), sys::acc_fft, xs.node(), "fft")
    }
    /// `ifft xs`: the inverse, divided by the number of elements.
    pub fn ifft<'g, S: Lower, F: Float>(&'g self, xs: Acc<'g, S, (F, F)>) -> Acc<'g, S, (F, F)> {
        call1(self.core(), sys::acc_ifft, xs.node(), "ifft")
    }
}

impl<'c> Graph<'c> {
    // --- loops around a function (LANGUAGE.md's third group) -------------

    /// `iterate n f x`: `f` applied `n` times to the scalar (or tuple) `x`,
    /// `x` itself when `n <= 0`; a `while` loop over (count, value), as
    /// Accelerate's `iterate`.  On arrays, call `f` n times in Rust (the
    /// text form's unrolling) or use [`Graph::awhile`] for a computed count.
    pub fn iterate<'g, E: Elem, R: IntoExp<'g, E>>(
        &'g self,
        n: impl IntoExp<'g, i64>,
        f: impl FnOnce(E::Exp<'g>) -> R,
        x: impl IntoExp<'g, E>,
    ) -> E::Exp<'g> {
        let n: Exp<'g, i64> = self.constant(n);
        let (_, v) = self.while_loop::<(i64, E), _, _>(|(k, _)| k.lt(n), |(k, v)| (k + 1, f(v)), (0i64, x));
        v
    }

    /// `sfoldl f z ix xs`: row `ix` of `xs` (an index of one rank less;
    /// `[]` for a vector) folded from the left in scalar code,
    /// `f (... (f (f z x0) x1) ...) x(n-1)`; `f` may take an element type
    /// other than `z`'s.
    pub fn sfoldl<'g, S: Lower, A: Elem, E: Elem, R: IntoExp<'g, A>>(
        &'g self,
        f: impl FnOnce(A::Exp<'g>, E::Exp<'g>) -> R,
        z: impl IntoExp<'g, A>,
        ix: impl IntoExp<'g, S::Lower>,
        xs: Acc<'g, S, E>,
    ) -> A::Exp<'g> {
        let g = self.core();
        let row = self.constant::<S::Lower>(ix);
        let n = xs.length();
        let (acc, _) = self.while_loop::<(A, i64), _, _>(
            |(_, k)| k.lt(n),
            |(acc, k)| {
                let at = S::exp_into_node(g, S::snoc(row, k));
                // SAFETY: nodes of this graph.
                let x = crate::elem::from_node::<E>(g, unsafe { sys::acc_read(g.raw(), xs.node(), at) });
                (f(acc, x), k + 1)
            },
            (z, 0i64),
        );
        acc
    }
}

/// `zip3` .. `zip8` (`acc_zip_n`) and `unzip3` .. `unzip8`.
macro_rules! zips {
    ($($zip:ident $unzip:ident: $($t:ident $x:ident),+;)*) => {
        impl<'c> Graph<'c> {
            $(
                #[doc = concat!("`", stringify!($zip), "`: the arrays' elements as tuples (the extent is the intersection).")]
                // one argument per array, as zip3 .. zip8 are in the text
                #[allow(clippy::too_many_arguments)]
                pub fn $zip<'g, S: Shape, $($t: Elem),+>(
                    &'g self,
                    $($x: Acc<'g, S, $t>),+
                ) -> Acc<'g, S, ($($t,)+)> {
                    let g = self.core();
                    let nodes = [$($x.node()),+];
                    // SAFETY: nodes of this graph, as many as passed.
                    g.acc(unsafe { sys::acc_zip_n(g.raw(), nodes.len(), nodes.as_ptr()) }, stringify!($zip))
                }
                #[doc = concat!("`", stringify!($unzip), " xs`: one array per field of a tuple array.")]
                pub fn $unzip<'g, S: Shape, $($t: Elem),+>(
                    &'g self,
                    xs: Acc<'g, S, ($($t,)+)>,
                ) -> ($(Acc<'g, S, $t>,)+) {
                    let g = self.core();
                    // SAFETY: a node of this graph.
                    crate::graph::arrays_from(g, unsafe { sys::acc_unzip(g.raw(), xs.node()) }, stringify!($unzip))
                }
            )*
        }
    };
}
zips! {
    zip3 unzip3: A a, B b, C c;
    zip4 unzip4: A a, B b, C c, D d;
    zip5 unzip5: A a, B b, C c, D d, E e;
    zip6 unzip6: A a, B b, C c, D d, E e, F f;
    zip7 unzip7: A a, B b, C c, D d, E e, F f, G h;
    zip8 unzip8: A a, B b, C c, D d, E e, F f, G h, H i;
}
