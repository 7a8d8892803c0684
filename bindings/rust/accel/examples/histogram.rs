//! A histogram (LANGUAGE.md §4) with the builder: `permute` with (+) into
//! `k` zeroed bins; the counts are written into a Rust buffer
//! (`run_into`, no allocation by accel) and checked against a plain loop.
//!
//! `cargo run --example histogram` (or `make demo`).
use accel::{Acc, Context, DIM1};

fn main() -> accel::Result<()> {
    let ctx = Context::new()?;
    let g = ctx.graph()?;
    let k = g.input_scalar::<i64>();
    let xs: Acc<DIM1, i32> = g.input();
    let ones = g.map(|_| 1, xs);
    let hist = g.compile(g.permute(|a, b| a + b, g.fill([k], 0), |[i]| [xs.at([i]).cast::<i64>()], ones))?;

    let bins = 12usize;
    // a triangular distribution: the sum of two uniform digits
    let mut state = 0x2545_F491u32;
    let values: Vec<i32> = (0..200_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            ((state % 6) + (state / 6 % 7)) as i32
        })
        .collect();
    let mut counts = vec![0i32; bins];
    hist.run_into((bins as i64, &values), &mut counts[..])?;

    let mut want = vec![0i32; bins];
    for &v in &values {
        want[v as usize] += 1;
    }
    println!("backend {}: histogram of {} values", ctx.backend().name(), values.len());
    let most = *counts.iter().max().unwrap_or(&1).max(&1);
    for (bin, &c) in counts.iter().enumerate() {
        println!("{bin:3} {c:7} {}", "#".repeat((c as usize * 50).div_ceil(most as usize)));
    }
    assert_eq!(counts, want, "accel and the plain loop disagree");
    Ok(())
}
