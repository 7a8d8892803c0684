//! Execution handles (`acc_exec`): runs with a deadline, cancellable from
//! another thread (docs/ABI.md, "Cancellation and deadlines").
use std::marker::PhantomData;
use std::ptr::{self, NonNull};
use std::sync::Arc;
use std::time::Duration;

use accel_sys as sys;

use crate::context::{Context, ContextHandle};
use crate::error::{check, Error, Result};
use crate::program::{Inputs, Outputs, Program};

struct ExecHandle {
    raw: NonNull<sys::acc_exec>,
    _ctx: Arc<ContextHandle>,
}

// SAFETY: acc_exec_cancel may be called from any thread; every other call
// goes through `Exec`, which is not Sync, and takes `&mut self`.  Destroy
// runs once, when the last reference (Exec or Canceller) goes.
unsafe impl Send for ExecHandle {}
// SAFETY: as above: shared references only cancel.
unsafe impl Sync for ExecHandle {}

impl Drop for ExecHandle {
    fn drop(&mut self) {
        // SAFETY: the last reference; nothing runs or cancels through it.
        unsafe { sys::acc_exec_destroy(self.raw.as_ptr()) }
    }
}

/// Options of an execution handle (`acc_exec_options`).
#[derive(Debug, Clone, Default)]
pub struct ExecOptions {
    deadline: Option<Duration>,
    no_deadline: bool,
}

impl ExecOptions {
    /// The defaults: the context's deadline (none unless set).
    pub fn new() -> ExecOptions {
        ExecOptions::default()
    }
    /// The deadline of each run through the handle, from its start: a run
    /// past it stops with [`Error::Timeout`].
    pub fn deadline(mut self, d: Duration) -> Self {
        self.deadline = Some(d);
        self.no_deadline = false;
        self
    }
    /// No deadline, whatever the context says.
    pub fn no_deadline(mut self) -> Self {
        self.deadline = None;
        self.no_deadline = true;
        self
    }
}

/// An execution handle: runs programs of its context one at a time, with
/// an optional deadline, and can be cancelled from another thread through
/// a [`Canceller`].  Runs are synchronous: the safe crate does not queue
/// work on CUDA streams asynchronously (`accel-sys` can).
///
/// **Threads:** `Send`, not `Sync`: docs/ABI.md says a handle is used by
/// one thread at a time, except `acc_exec_cancel`, which any thread may
/// call: that is [`Canceller`], which is `Send` and `Sync`.
pub struct Exec {
    h: Arc<ExecHandle>,
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

/// Cancels the run in progress on an [`Exec`] from any thread.
#[derive(Clone)]
pub struct Canceller {
    h: Arc<ExecHandle>,
}

impl Canceller {
    /// Asks the run in progress (or, when none is, the next run) to stop:
    /// it returns [`Error::Cancelled`] at its next check point.
    pub fn cancel(&self) -> Result<()> {
        // SAFETY: a live handle; cancel is callable from any thread.
        check(unsafe { sys::acc_exec_cancel(self.h.raw.as_ptr()) })
    }
}

impl std::fmt::Debug for Canceller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Canceller")
    }
}

impl std::fmt::Debug for Exec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Exec")
    }
}

/// Keeps a run's inputs alive, whatever their type.
trait Keep {}
impl<T> Keep for T {}

/// A run submitted with [`Exec::submit`]: it borrows its inputs (and the
/// handle) until [`Pending::wait`] gives its outputs, so the slices it
/// reads cannot be freed or changed before.  Dropped without waiting, it
/// waits and releases the outputs.
pub struct Pending<'a, O: Outputs> {
    exec: &'a mut Exec,
    outs: Vec<sys::acc_array>,
    _inputs: Box<dyn Keep + 'a>,
    _o: PhantomData<O>,
}

impl Exec {
    /// A handle for programs of `ctx` with the default options.
    pub fn new(ctx: &Context) -> Result<Exec> {
        Exec::with_options(ctx, &ExecOptions::new())
    }

    /// A handle with `options`.
    pub fn with_options(ctx: &Context, options: &ExecOptions) -> Result<Exec> {
        // SAFETY: all-zero is a valid struct for init to fill.
        let mut o: sys::acc_exec_options = unsafe { std::mem::zeroed() };
        // SAFETY: o is writable and of the size given (the sized call:
        // the plain symbol writes only the first published fields).
        let st = unsafe { sys::acc_exec_options_init_sized(&mut o, std::mem::size_of_val(&o)) };
        debug_assert_eq!(st, sys::ACC_OK);
        if let Some(d) = options.deadline {
            o.deadline_seconds = d.as_secs_f64();
        } else if options.no_deadline {
            o.deadline_seconds = f64::INFINITY;
        }
        let mut x = ptr::null_mut();
        // SAFETY: a live context, valid options; x is written.
        check(unsafe { sys::acc_exec_create(ctx.raw(), &o, &mut x) })?;
        let raw = NonNull::new(x).ok_or_else(|| Error::Internal("no execution handle".into()))?;
        Ok(Exec {
            h: Arc::new(ExecHandle { raw, _ctx: Arc::clone(ctx.handle()) }),
            _not_sync: PhantomData,
        })
    }

    fn raw(&self) -> *mut sys::acc_exec {
        self.h.raw.as_ptr()
    }

    /// A canceller of this handle's runs, for another thread.
    pub fn canceller(&self) -> Canceller {
        Canceller { h: Arc::clone(&self.h) }
    }

    /// Runs `program` (of this handle's context) on `inputs`, as
    /// [`Program::run`], with the handle's deadline and cancellation.
    pub fn run<I: Inputs, O: Outputs>(&mut self, program: &Program, inputs: I) -> Result<O> {
        self.submit(program, inputs)?.wait()
    }

    /// Submits a run; its outputs come from [`Pending::wait`].  The
    /// pending run borrows its inputs, so they must outlive it:
    ///
    /// ```
    /// # fn main() -> accel::Result<()> {
    /// use accel::{Array, Context, Exec};
    /// let ctx = Context::new()?;
    /// let program = ctx.compile_text("twice (xs : Vector f32) : Vector f32 = map (* 2) xs", None)?;
    /// let mut exec = Exec::new(&ctx)?;
    /// let xs = vec![1.0f32, 2.0, 3.0];
    /// let pending = exec.submit::<_, Array<f32>>(&program, xs.as_slice())?;
    /// assert_eq!(&pending.wait()?[..], &[2.0, 4.0, 6.0]);
    /// # Ok(()) }
    /// ```
    ///
    /// A run cannot outlive the slice it reads: this does not compile.
    ///
    /// ```compile_fail,E0597
    /// # fn main() -> accel::Result<()> {
    /// use accel::{Array, Context, Exec};
    /// let ctx = Context::new()?;
    /// let program = ctx.compile_text("twice (xs : Vector f32) : Vector f32 = map (* 2) xs", None)?;
    /// let mut exec = Exec::new(&ctx)?;
    /// let pending = {
    ///     let xs = vec![1.0f32, 2.0, 3.0];
    ///     exec.submit::<_, Array<f32>>(&program, xs.as_slice())?
    /// }; // error[E0597]: `xs` does not live long enough
    /// let out = pending.wait()?;
    /// # Ok(()) }
    /// ```
    pub fn submit<'a, I: Inputs + 'a, O: Outputs>(
        &'a mut self,
        program: &'a Program,
        inputs: I,
    ) -> Result<Pending<'a, O>> {
        if !Arc::ptr_eq(program.context_handle(), &self.h._ctx) {
            return Err(Error::InvalidArgument(
                "the program belongs to another context than the execution handle".into(),
            ));
        }
        // Boxed so that descriptors pointing into by-value inputs stay
        // valid while the Pending moves.
        let inputs = Box::new(inputs);
        let ins = program.describe_inputs(&*inputs)?;
        let mut outs = program.empty_outputs::<O>()?;
        // SAFETY: descriptors valid until the run completes (inputs are
        // kept by the Pending); outputs zeroed for accel to allocate.
        let st = unsafe {
            sys::acc_run_exec(
                self.raw(),
                program.raw(),
                ins.len(),
                ins.as_ptr(),
                outs.len(),
                outs.as_mut_ptr(),
            )
        };
        if let Err(e) = check(st) {
            // SAFETY: a live handle; clears the failure it recorded.
            unsafe { sys::acc_exec_wait(self.raw()) };
            return Err(e);
        }
        Ok(Pending { exec: self, outs, _inputs: inputs, _o: PhantomData })
    }
}

impl<O: Outputs> Pending<'_, O> {
    /// Waits for the run and takes its outputs.
    pub fn wait(mut self) -> Result<O> {
        let mut outs = std::mem::take(&mut self.outs);
        // SAFETY: a live handle.
        let st = unsafe { sys::acc_exec_wait(self.exec.raw()) };
        match check(st) {
            // SAFETY: accel allocated outputs of the types O checked.
            Ok(()) => Ok(unsafe { O::take(&mut outs) }),
            Err(e) => {
                release(&mut outs);
                Err(e)
            }
        }
    }
}

fn release(outs: &mut [sys::acc_array]) {
    for o in outs {
        // SAFETY: library-owned outputs (or empty ones), released once.
        unsafe { sys::acc_array_release(o) };
    }
}

impl<O: Outputs> Drop for Pending<'_, O> {
    fn drop(&mut self) {
        if !self.outs.is_empty() {
            // SAFETY: a live handle.
            unsafe { sys::acc_exec_wait(self.exec.raw()) };
            release(&mut self.outs);
        }
    }
}
