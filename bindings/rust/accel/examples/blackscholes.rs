//! Black-Scholes option pricing (LANGUAGE.md §4) from its text form: the
//! options are three Rust slices viewed as one array of (price, strike,
//! years) tuples, the result an owned array of (call, put) pairs read in
//! place; a few prices are checked against plain Rust.
//!
//! `cargo run --example blackscholes` (or `make demo`).
use accel::{Array, ArrayView, Context};

const SOURCE: &str = r#"
cnd d =
  let k = 1.0 / (1.0 + 0.2316419 * abs d);
      poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
      c = 0.3989422804014327 * exp (-0.5 * d * d) * poly
  in if d > 0 then 1.0 - c else c

blackscholes (opts : Vector (f32, f32, f32)) : Vector (f32, f32) =
  map (\(price, strike, years) ->
         let r = 0.02; v = 0.30;
             v_sqrtT = v * sqrt years;
             d1 = (log (price / strike) + (r + 0.5 * v * v) * years) / v_sqrtT;
             d2 = d1 - v_sqrtT;
             cndD1 = cnd d1; cndD2 = cnd d2;
             x_expRT = strike * exp (-r * years)
         in (price * cndD1 - x_expRT * cndD2, x_expRT * (1.0 - cndD2) - price * (1.0 - cndD1)))
      opts
"#;

fn cnd(d: f64) -> f64 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    let c = 0.3989422804014327 * (-0.5 * d * d).exp() * poly;
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

fn main() -> accel::Result<()> {
    let ctx = Context::new()?;
    let program = ctx.compile_text(SOURCE, Some("blackscholes"))?;

    let n = 100_000;
    let price: Vec<f32> = (0..n).map(|i| 5.0 + (i % 250) as f32 * 0.1).collect();
    let strike: Vec<f32> = (0..n).map(|i| 1.0 + (i % 99) as f32).collect();
    let years: Vec<f32> = (0..n).map(|i| 0.25 + (i % 39) as f32 * 0.25).collect();
    let opts = ArrayView::<(f32, f32, f32)>::new(&[n], (&price, &strike, &years))?;
    let priced: Array<(f32, f32)> = program.run(opts)?;
    let (call, put) = priced.leaves();

    println!("backend {}: {n} options priced", ctx.backend().name());
    println!("{:>8} {:>8} {:>6} {:>10} {:>10}", "price", "strike", "years", "call", "put");
    for i in [0, 1, 12_345, n - 1] {
        let (s, x, t) = (price[i] as f64, strike[i] as f64, years[i] as f64);
        let v_sqrt_t = 0.30 * t.sqrt();
        let d1 = ((s / x).ln() + (0.02 + 0.5 * 0.30 * 0.30) * t) / v_sqrt_t;
        let d2 = d1 - v_sqrt_t;
        let x_exp_rt = x * (-0.02 * t).exp();
        let want_call = s * cnd(d1) - x_exp_rt * cnd(d2);
        let want_put = x_exp_rt * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1));
        println!("{s:8.2} {x:8.2} {t:6.2} {:10.4} {:10.4}", call[i], put[i]);
        assert!((call[i] as f64 - want_call).abs() <= 1e-3 * want_call.abs().max(1.0));
        assert!((put[i] as f64 - want_put).abs() <= 1e-3 * want_put.abs().max(1.0));
    }
    Ok(())
}
