//! The dot product of LANGUAGE.md §4, written with the embedded builder,
//! compiled once for the default backend and run on a million elements;
//! the result is checked against a plain Rust loop.
//!
//! `cargo run --example dotp` (or `make demo`).
use accel::{Acc, Array, Context, DIM1};
use std::time::Instant;

fn main() -> accel::Result<()> {
    let ctx = Context::new()?;
    let g = ctx.graph()?;
    let xs: Acc<DIM1, f32> = g.input();
    let ys: Acc<DIM1, f32> = g.input();
    let dotp = g.compile(g.fold(|a, b| a + b, 0.0, g.zip_with(|x, y| x * y, xs, ys)))?;

    let n = 1_000_000;
    let a: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 - (i % 5) as f32 * 0.25).collect();
    let start = Instant::now();
    let got: Array<f32> = dotp.run((&a, &b))?;
    let took = start.elapsed();

    let want: f64 = a.iter().zip(&b).map(|(&x, &y)| x as f64 * y as f64).sum();
    println!("backend {}: dotp of {n} elements = {} ({:.2?})", ctx.backend().name(), got[0], took);
    println!("plain Rust loop (f64)     = {want}");
    let err = (got[0] as f64 - want).abs() / want.abs();
    assert!(err < 1e-4, "relative error {err}");
    Ok(())
}
