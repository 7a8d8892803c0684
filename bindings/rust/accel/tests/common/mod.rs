//! Helpers shared by the tests: the contexts to test on, deterministic
//! inputs, float comparison.
#![allow(dead_code)]

use accel::{Backend, Context};

/// The interpreter always; the cpu backend too when a C compiler works
/// (it always does where the project's own tests run).
pub fn contexts() -> Vec<Context> {
    let mut v = vec![Context::with_backend(Backend::Interp).expect("the interpreter is always there")];
    match Context::with_backend(Backend::Cpu) {
        Ok(c) => v.push(c),
        Err(e) => eprintln!("cpu backend not available: {e}"),
    }
    v
}

pub fn interp() -> Context {
    Context::with_backend(Backend::Interp).expect("interp")
}

/// A small deterministic generator (no crates): xorshift64*.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi).
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    /// Uniform in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// |got - want| <= tol * max(1, |want|).
pub fn close(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * want.abs().max(1.0)
}
