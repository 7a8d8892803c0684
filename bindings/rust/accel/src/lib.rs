//! accel from Rust: data-parallel array programs (map, zipWith, fold,
//! scan, permute, stencil, ...) compiled once and run many times, on the
//! reference interpreter, on CPU cores, or on a CUDA GPU.
//!
//! This crate is the safe layer over [`accel_sys`] (the raw C ABI,
//! `abi/include/accel.h`): handles free themselves in `Drop`, a
//! [`Program`] keeps its [`Context`] alive, every fallible call returns
//! [`Result`] with an [`Error`] carrying accel's message, inputs are
//! borrowed Rust slices and outputs owned [`Array`]s read in place.
//!
//! Programs come from text (LANGUAGE.md §4) or from the embedded builder,
//! where Rust closures are traced into the program:
//!
//! ```
//! # fn main() -> accel::Result<()> {
//! use accel::{Acc, Array, Context, DIM1};
//!
//! let ctx = Context::new()?;
//!
//! // text
//! let dotp = ctx.compile_text(
//!     "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =
//!        fold (+) 0 (zipWith (*) xs ys)",
//!     None,
//! )?;
//!
//! // builder
//! let g = ctx.graph()?;
//! let xs: Acc<DIM1, f32> = g.input();
//! let ys: Acc<DIM1, f32> = g.input();
//! let dot = g.fold(|a, b| a + b, 0.0, g.zip_with(|x, y| x * y, xs, ys));
//! let built = g.compile(dot)?;
//!
//! let (a, b) = (vec![1.0f32, 2.0, 3.0], vec![4.0f32, 5.0, 6.0]);
//! let r1: Array<f32> = dotp.run((&a, &b))?;
//! let r2: Array<f32> = built.run((&a, &b))?;
//! assert_eq!((r1[0], r2[0]), (32.0, 32.0));
//! # Ok(()) }
//! ```
//!
//! Threads (docs/ABI.md, "Threads"): [`Program`] and [`Array`] are `Send`
//! and `Sync` (a program may run on many threads at once); [`Context`] and
//! [`Exec`] are `Send` but not `Sync` (one thread at a time calls into
//! them); a [`Graph`] and its terms stay on the thread of their context.
//! Each type's documentation says why.
#![warn(missing_docs)]

mod array;
mod context;
mod elem;
mod error;
mod exec;
mod exp;
mod graph;
mod ops;
mod program;
mod stdlib;

pub use accel_sys as sys;
pub use array::{Array, ArrayView, ArrayViewMut};
pub use context::{Backend, Context, ContextOptions};
pub use elem::{
    Elem, Float, Int, Ix, Lower, Num, Scalar, Shape, DIM0, DIM1, DIM2, DIM3, DIM4, DIM5, DIM6,
    DIM7, DIM8,
};
pub use error::{Category, Error, Result};
pub use exec::{Canceller, Exec, ExecOptions, Pending};
pub use exp::{Exp, IntoExp};
pub use graph::{Acc, Arrays, Graph, GraphCore};
pub use ops::{Boundary, Spec, Window, W};
pub use program::{
    Destination, Destinations, Input, Inputs, Outputs, Param, Plan, Program, RunStats,
};
pub use stdlib::IndexOf;

/// The library version, `"MAJOR.MINOR.PATCH"`.
pub fn version() -> &'static str {
    // SAFETY: a static string.
    unsafe { error::static_str(sys::acc_version_string()) }
}

/// The ABI version of the library loaded; [`sys::ACC_ABI_VERSION`] is the
/// one these bindings were made for.
pub fn abi_version() -> u32 {
    // SAFETY: no arguments.
    unsafe { sys::acc_abi_version() }
}

/// The names of the entry points of a text program.
pub fn entry_points(source: &str) -> Result<Vec<String>> {
    let mut names = std::ptr::null_mut();
    // SAFETY: source with its length; names is allocated by accel.
    error::check(unsafe { sys::acc_parse_entries(source.as_ptr().cast(), source.len(), &mut names) })?;
    // SAFETY: accel allocated names.
    let s = unsafe { error::take_string(names) };
    Ok(s.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect())
}

/// The entry points of a text program with their signatures, as JSON,
/// without compiling anything (`acc_parse_entries_json`).
pub fn entries_json(source: &str) -> Result<String> {
    let mut json = std::ptr::null_mut();
    // SAFETY: source with its length; json is allocated by accel.
    error::check(unsafe {
        sys::acc_parse_entries_json(source.as_ptr().cast(), source.len(), &mut json)
    })?;
    // SAFETY: accel allocated json.
    Ok(unsafe { error::take_string(json) })
}
