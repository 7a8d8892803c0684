//! Compiled programs (`acc_program`) and running them: inputs from Rust
//! slices ([`Inputs`]), outputs as owned [`Array`]s ([`Outputs`]) or
//! written into Rust slices ([`Destinations`]).
use std::ptr::{self, NonNull};
use std::sync::Arc;

use accel_sys as sys;

use crate::array::{Array, ArrayView, ArrayViewMut};
use crate::context::{Backend, Context, ContextHandle};
use crate::elem::{elem_name, type_name, Elem, Scalar, TypeRef};
use crate::error::{check, take_string, Error, Result};

/// A compiled program (`acc_program`): compiled once, run many times, on
/// arrays of any extents.  It keeps its context alive, so it may outlive
/// the [`Context`] it was compiled in, and frees itself in `Drop`.
///
/// **Threads:** `Send` and `Sync`: docs/ABI.md promises that a program may
/// be run from several threads at once (`acc_run`), each run with its own
/// descriptors, which [`Program::run`] makes per call; freeing it must not
/// race a run, which `Drop` (exclusive ownership) guarantees.  Share one
/// between threads with an `Arc<Program>` or scoped threads.
pub struct Program {
    raw: NonNull<sys::acc_program>,
    ctx: Arc<ContextHandle>,
}

// SAFETY: acc_run is safe from several threads at once (docs/ABI.md,
// "Threads"); the other functions used through &self only read the
// program's fixed signature and plan, or its statistics under accel's
// lock.  acc_program_free runs in Drop, with no run in progress.
unsafe impl Send for Program {}
// SAFETY: as above.
unsafe impl Sync for Program {}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: no run is in progress (Drop has the only reference); the
        // context is freed after this, when `ctx` drops.
        unsafe { sys::acc_program_free(self.raw.as_ptr()) }
    }
}

/// The element type (as accel names it) and rank of one input or output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The element type: `"f32"`, `"(f32, i32)"`, `"index of rank 2"`.
    pub elem: String,
    /// The rank.
    pub rank: usize,
}

/// The plan's numbers (`acc_plan_summary`): fixed at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Where the program runs.
    pub backend: Backend,
    /// Parallel steps (kernels).
    pub kernels: usize,
    /// Arrays materialised that are neither inputs nor outputs.
    pub intermediates: usize,
    /// Foreign nodes that call an implementation.
    pub foreign_calls: usize,
    /// Cheap producers computed in several consumers.
    pub duplicated: usize,
}

/// Statistics of a program's last completed run (`acc_run_stats`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunStats {
    /// Kernels run.
    pub kernels_launched: u64,
    /// Array memory allocated.
    pub bytes_allocated: u64,
    /// Of which for intermediate arrays.
    pub intermediate_bytes: u64,
    /// Wall-clock duration in seconds.
    pub seconds: f64,
}

impl Program {
    pub(crate) fn from_raw(p: *mut sys::acc_program, ctx: &Context) -> Result<Program> {
        let raw = NonNull::new(p).ok_or_else(|| Error::Internal("no program".into()))?;
        Ok(Program { raw, ctx: Arc::clone(ctx.handle()) })
    }

    pub(crate) fn raw(&self) -> *mut sys::acc_program {
        self.raw.as_ptr()
    }

    pub(crate) fn context_handle(&self) -> &Arc<ContextHandle> {
        &self.ctx
    }

    /// Runs the program on `inputs`, returning outputs accel allocates.
    ///
    /// `inputs` is one input or a tuple of them, in the program's order:
    /// slices (`&[f32]`, `&Vec<f32>`: vectors), [`ArrayView`]s (any shape,
    /// tuples of slices for tuple elements), [`Array`]s of earlier runs,
    /// and scalar values (`3i64`: rank-0 inputs).  `O` is an [`Array`] or
    /// a tuple of them, one per output:
    ///
    /// ```
    /// # fn main() -> accel::Result<()> {
    /// use accel::{Array, Context};
    /// let ctx = Context::new()?;
    /// let p = ctx.compile_text(
    ///     "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 = fold (+) 0 (zipWith (*) xs ys)",
    ///     None,
    /// )?;
    /// let dot: Array<f32> = p.run((&vec![1.0f32, 2.0, 3.0], &vec![4.0f32, 5.0, 6.0]))?;
    /// assert_eq!(dot[0], 32.0);
    /// # Ok(()) }
    /// ```
    ///
    /// Wrong counts, element types or ranks are [`Error::InvalidArgument`],
    /// [`Error::Type`] and [`Error::Shape`] with accel's message; a failure
    /// while running (an index out of range) is [`Error::Runtime`].
    pub fn run<I: Inputs, O: Outputs>(&self, inputs: I) -> Result<O> {
        let ins = self.describe_inputs(&inputs)?;
        let mut outs = self.empty_outputs::<O>()?;
        // SAFETY: descriptors valid for the call (inputs is alive), outputs
        // zeroed for accel to allocate.
        check(unsafe {
            sys::acc_run(self.raw(), ins.len(), ins.as_ptr(), outs.len(), outs.as_mut_ptr())
        })?;
        // SAFETY: accel filled every output with a library-owned array of
        // the types O::check accepted.
        Ok(unsafe { O::take(&mut outs) })
    }

    /// Runs the program, writing the outputs into `outputs`: an
    /// [`ArrayViewMut`], a `&mut [T]` (a vector), or a tuple of them, whose
    /// extents must be the results' ([`Error::Shape`] otherwise).
    pub fn run_into<I: Inputs, D: Destinations>(&self, inputs: I, mut outputs: D) -> Result<()> {
        let ins = self.describe_inputs(&inputs)?;
        let n = self.num_outputs();
        if D::COUNT != n {
            return Err(count_error("output", n, D::COUNT));
        }
        let mut outs = Vec::with_capacity(n);
        outputs.describe_all(self, &mut outs)?;
        // SAFETY: descriptors valid for the call; the output buffers are
        // unique borrows held by `outputs`.
        check(unsafe {
            sys::acc_run(self.raw(), ins.len(), ins.as_ptr(), outs.len(), outs.as_mut_ptr())
        })
    }

    pub(crate) fn describe_inputs<I: Inputs>(&self, inputs: &I) -> Result<Vec<sys::acc_array>> {
        let n = self.num_inputs();
        if I::COUNT != n {
            return Err(count_error("input", n, I::COUNT));
        }
        let mut ins = Vec::with_capacity(n);
        inputs.describe_all(self, &mut ins)?;
        Ok(ins)
    }

    pub(crate) fn empty_outputs<O: Outputs>(&self) -> Result<Vec<sys::acc_array>> {
        let n = self.num_outputs();
        if O::COUNT != n {
            return Err(count_error("output", n, O::COUNT));
        }
        O::check(self, 0)?;
        // SAFETY: an all-zero descriptor with struct_size set is what accel
        // fills in.
        let mut empty: sys::acc_array = unsafe { std::mem::zeroed() };
        empty.struct_size = std::mem::size_of::<sys::acc_array>();
        Ok(vec![empty; n])
    }

    /// The element type of input (`input` true) or output `i`, NULL when
    /// there is none.
    pub(crate) fn type_of(&self, input: bool, i: usize) -> (*const sys::acc_type, i32) {
        let (mut t, mut r) = (ptr::null(), 0);
        // SAFETY: a live program; t and r are written (NULL/0 on error).
        unsafe {
            if input {
                sys::acc_program_input(self.raw(), i, &mut t, &mut r);
            } else {
                sys::acc_program_output(self.raw(), i, &mut t, &mut r);
            }
        }
        (t, r)
    }

    /// The number of inputs.
    pub fn num_inputs(&self) -> usize {
        // SAFETY: a live program.
        unsafe { sys::acc_program_num_inputs(self.raw()) }
    }
    /// The number of outputs.
    pub fn num_outputs(&self) -> usize {
        // SAFETY: a live program.
        unsafe { sys::acc_program_num_outputs(self.raw()) }
    }
    /// The element types and ranks of the inputs, in order.
    pub fn inputs(&self) -> Vec<Param> {
        (0..self.num_inputs()).map(|i| self.param(true, i)).collect()
    }
    /// The element types and ranks of the outputs, in order.
    pub fn outputs(&self) -> Vec<Param> {
        (0..self.num_outputs()).map(|i| self.param(false, i)).collect()
    }
    fn param(&self, input: bool, i: usize) -> Param {
        let (t, r) = self.type_of(input, i);
        Param { elem: type_name(t), rank: r.max(0) as usize }
    }
    /// The signature as JSON (`acc_program_signature_json`: names of a
    /// text program's parameters, element type trees, ranks, leaves).
    pub fn signature_json(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        // SAFETY: a live program; s is allocated by accel.
        check(unsafe { sys::acc_program_signature_json(self.raw(), &mut s) })?;
        // SAFETY: accel allocated s.
        Ok(unsafe { take_string(s) })
    }
    /// The plan for people: kernels, what was fused, intermediate arrays,
    /// foreign choices.
    pub fn explain(&self) -> Result<String> {
        self.explain_as(0)
    }
    /// The plan as a JSON object.
    pub fn explain_json(&self) -> Result<String> {
        self.explain_as(1)
    }
    fn explain_as(&self, json: i32) -> Result<String> {
        let mut s = ptr::null_mut();
        // SAFETY: a live program; s is allocated by accel.
        check(unsafe { sys::acc_program_explain(self.raw(), json, &mut s) })?;
        // SAFETY: accel allocated s.
        Ok(unsafe { take_string(s) })
    }
    /// The plan's numbers.
    pub fn plan(&self) -> Result<Plan> {
        // SAFETY: zeroed, with struct_size set, is what accel fills in.
        let mut s: sys::acc_plan_summary = unsafe { std::mem::zeroed() };
        s.struct_size = std::mem::size_of::<sys::acc_plan_summary>();
        // SAFETY: a live program and a writable summary.
        check(unsafe { sys::acc_program_plan(self.raw(), &mut s) })?;
        Ok(Plan {
            backend: Backend::from_raw(s.backend),
            kernels: s.kernels,
            intermediates: s.intermediates,
            foreign_calls: s.foreign_calls,
            duplicated: s.duplicated,
        })
    }
    /// Statistics of the last completed run (zeros before the first).
    pub fn last_run(&self) -> Result<RunStats> {
        // SAFETY: zeroed, with struct_size set, is what accel fills in.
        let mut s: sys::acc_run_stats = unsafe { std::mem::zeroed() };
        s.struct_size = std::mem::size_of::<sys::acc_run_stats>();
        // SAFETY: a live program and writable stats.
        check(unsafe { sys::acc_program_last_run(self.raw(), &mut s) })?;
        Ok(RunStats {
            kernels_launched: s.kernels_launched,
            bytes_allocated: s.bytes_allocated,
            intermediate_bytes: s.intermediate_bytes,
            seconds: s.seconds,
        })
    }
    /// The backend the program runs on.
    pub fn backend(&self) -> Backend {
        // SAFETY: a live program.
        Backend::from_raw(unsafe { sys::acc_program_backend(self.raw()) })
    }
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("backend", &self.backend())
            .field("inputs", &self.inputs())
            .field("outputs", &self.outputs())
            .finish()
    }
}

fn count_error(what: &str, want: usize, got: usize) -> Error {
    Error::InvalidArgument(format!(
        "the program has {want} {what}{}, {got} {} given",
        if want == 1 { "" } else { "s" },
        if got == 1 { "was" } else { "were" }
    ))
}

/// One input of a run: a slice (a vector), an [`ArrayView`], an [`Array`],
/// or a scalar value (rank 0).
pub trait Input {
    #[doc(hidden)]
    fn describe(&self, want: TypeRef, index: usize) -> Result<sys::acc_array>;
}

impl<E: Elem> Input for ArrayView<'_, E> {
    fn describe(&self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        self.descriptor(want.0, index)
    }
}
impl<E: Elem> Input for &ArrayView<'_, E> {
    fn describe(&self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        self.descriptor(want.0, index)
    }
}
impl<T: Scalar> Input for &[T] {
    fn describe(&self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        ArrayView::vector(self).descriptor(want.0, index)
    }
}
impl<T: Scalar> Input for &Vec<T> {
    fn describe(&self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        ArrayView::vector(self.as_slice()).descriptor(want.0, index)
    }
}
impl<T: Scalar, const N: usize> Input for &[T; N] {
    fn describe(&self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        ArrayView::vector(&self[..]).descriptor(want.0, index)
    }
}
impl<E: Elem> Input for &Array<E> {
    fn describe(&self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        self.view().descriptor(want.0, index)
    }
}
impl<T: Scalar> Input for T {
    fn describe(&self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        ArrayView::scalar(self).descriptor(want.0, index)
    }
}

/// The inputs of a run: one [`Input`], `()` or a tuple of inputs (up to 12).
pub trait Inputs {
    #[doc(hidden)]
    const COUNT: usize;
    #[doc(hidden)]
    fn describe_all(&self, p: &Program, out: &mut Vec<sys::acc_array>) -> Result<()>;
}

fn push_input(p: &Program, x: &impl Input, out: &mut Vec<sys::acc_array>) -> Result<()> {
    let i = out.len();
    let (want, _) = p.type_of(true, i);
    out.push(x.describe(TypeRef(want), i)?);
    Ok(())
}

impl<T: Input> Inputs for T {
    const COUNT: usize = 1;
    fn describe_all(&self, p: &Program, out: &mut Vec<sys::acc_array>) -> Result<()> {
        push_input(p, self, out)
    }
}

impl Inputs for () {
    const COUNT: usize = 0;
    fn describe_all(&self, _: &Program, _: &mut Vec<sys::acc_array>) -> Result<()> {
        Ok(())
    }
}

macro_rules! inputs_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Input),+> Inputs for ($($t,)+) {
            const COUNT: usize = [$($i),+].len();
            fn describe_all(&self, p: &Program, out: &mut Vec<sys::acc_array>) -> Result<()> {
                $(push_input(p, &self.$i, out)?;)+
                Ok(())
            }
        }
    };
}
inputs_tuple!(A 0);
inputs_tuple!(A 0, B 1);
inputs_tuple!(A 0, B 1, C 2);
inputs_tuple!(A 0, B 1, C 2, D 3);
inputs_tuple!(A 0, B 1, C 2, D 3, E 4);
inputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
inputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
inputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
inputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
inputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
inputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
inputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// The outputs of a run that accel allocates: an [`Array<E>`] or a tuple
/// of outputs (up to 8 fields, nested like the tuple given to
/// [`Graph::compile`](crate::Graph::compile)), one array per output.
pub trait Outputs: Sized {
    #[doc(hidden)]
    const COUNT: usize;
    #[doc(hidden)]
    fn check(p: &Program, first: usize) -> Result<()>;
    #[doc(hidden)]
    /// # Safety
    /// `descs` holds COUNT library-owned arrays of the checked types.
    unsafe fn take(descs: &mut [sys::acc_array]) -> Self;
}

impl<E: Elem> Outputs for Array<E> {
    const COUNT: usize = 1;
    fn check(p: &Program, first: usize) -> Result<()> {
        let (t, _) = p.type_of(false, first);
        if crate::elem::matches::<E>(t) {
            Ok(())
        } else {
            Err(Error::Type(format!(
                "output {first} has element type {}, Array<{}> was asked for",
                type_name(t),
                elem_name::<E>()
            )))
        }
    }
    unsafe fn take(descs: &mut [sys::acc_array]) -> Self {
        Array::from_desc(descs[0])
    }
}

macro_rules! outputs_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Outputs),+> Outputs for ($($t,)+) {
            const COUNT: usize = 0 $(+ $t::COUNT)+;
            #[allow(unused_assignments)]
            fn check(p: &Program, first: usize) -> Result<()> {
                let mut at = first;
                $($t::check(p, at)?; at += $t::COUNT;)+
                Ok(())
            }
            #[allow(unused_assignments)]
            unsafe fn take(descs: &mut [sys::acc_array]) -> Self {
                let mut at = 0;
                // SAFETY: the caller's promise, part by part.
                ($({
                    let part = unsafe { $t::take(&mut descs[at..at + $t::COUNT]) };
                    at += $t::COUNT;
                    part
                },)+)
            }
        }
    };
}
outputs_tuple!(A 0);
outputs_tuple!(A 0, B 1);
outputs_tuple!(A 0, B 1, C 2);
outputs_tuple!(A 0, B 1, C 2, D 3);
outputs_tuple!(A 0, B 1, C 2, D 3, E 4);
outputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
outputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
outputs_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// One output written into Rust memory: an [`ArrayViewMut`] or a
/// `&mut [T]` (a vector).
pub trait Destination {
    #[doc(hidden)]
    fn describe(&mut self, want: TypeRef, index: usize) -> Result<sys::acc_array>;
}

impl<E: Elem> Destination for ArrayViewMut<'_, E> {
    fn describe(&mut self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        self.descriptor(want.0, index)
    }
}
impl<T: Scalar> Destination for &mut [T] {
    fn describe(&mut self, want: TypeRef, index: usize) -> Result<sys::acc_array> {
        ArrayViewMut::vector(self).descriptor(want.0, index)
    }
}

/// The outputs of [`Program::run_into`]: one [`Destination`] or a tuple of
/// them (up to 8).
pub trait Destinations {
    #[doc(hidden)]
    const COUNT: usize;
    #[doc(hidden)]
    fn describe_all(&mut self, p: &Program, out: &mut Vec<sys::acc_array>) -> Result<()>;
}

fn push_output(p: &Program, x: &mut impl Destination, out: &mut Vec<sys::acc_array>) -> Result<()> {
    let i = out.len();
    let (want, _) = p.type_of(false, i);
    out.push(x.describe(TypeRef(want), i)?);
    Ok(())
}

impl<T: Destination> Destinations for T {
    const COUNT: usize = 1;
    fn describe_all(&mut self, p: &Program, out: &mut Vec<sys::acc_array>) -> Result<()> {
        push_output(p, self, out)
    }
}

macro_rules! dests_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Destination),+> Destinations for ($($t,)+) {
            const COUNT: usize = [$($i),+].len();
            fn describe_all(&mut self, p: &Program, out: &mut Vec<sys::acc_array>) -> Result<()> {
                $(push_output(p, &mut self.$i, out)?;)+
                Ok(())
            }
        }
    };
}
dests_tuple!(A 0);
dests_tuple!(A 0, B 1);
dests_tuple!(A 0, B 1, C 2);
dests_tuple!(A 0, B 1, C 2, D 3);
dests_tuple!(A 0, B 1, C 2, D 3, E 4);
dests_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
dests_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
dests_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
