//! Every program of LANGUAGE.md §4, through text and through the builder,
//! on the interpreter and the cpu backend, checked against plain Rust
//! loops.
// The constants of LANGUAGE.md's Black-Scholes are kept as written there,
// though f32 cannot hold all their digits.
#![allow(clippy::excessive_precision)]

mod common;

use accel::{Acc, Array, ArrayView, Boundary, Exp, Graph, Program, DIM1, DIM2, W};
use common::{close, contexts, Rng};

/// LANGUAGE.md §4, exactly as written there: the file every binding's tests
/// read (tests/programs/).
const SECTION4: &str = include_str!("../../../../tests/programs/language4.acc");

/// Compiles an entry of SECTION4 and one built with `build`, and checks
/// both with `check` on every backend.
fn both(entry: &str, build: impl for<'c> Fn(&Graph<'c>) -> accel::Result<Program>, check: impl Fn(&Program)) {
    for ctx in contexts() {
        let text = ctx.compile_text(SECTION4, Some(entry)).unwrap_or_else(|e| panic!("{entry}: {e}"));
        check(&text);
        let g = ctx.graph().unwrap();
        let built = build(&g).unwrap_or_else(|e| panic!("{entry} (builder): {e}"));
        drop(g); // the program keeps what it needs
        check(&built);
    }
}

fn dot_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(n as u64);
    ((0..n).map(|_| r.f32(-1.0, 1.0)).collect(), (0..n).map(|_| r.f32(0.0, 2.0)).collect())
}

fn check_dot(p: &Program) {
    for n in [0usize, 1, 10, 1000, 100_000] {
        let (xs, ys) = dot_inputs(n);
        let got: Array<f32> = p.run((&xs, &ys)).unwrap();
        assert_eq!(got.shape(), &[] as &[usize]);
        let want: f64 = xs.iter().zip(&ys).map(|(&x, &y)| x as f64 * y as f64).sum();
        let bound: f64 = xs.iter().zip(&ys).map(|(&x, &y)| (x as f64 * y as f64).abs()).sum();
        let tol = (n as f64 + 1.0) * f32::EPSILON as f64 * bound;
        assert!((got[0] as f64 - want).abs() <= tol, "dotp n={n}: {} vs {want}", got[0]);
    }
}

fn build_dotp<'c>(g: &Graph<'c>) -> accel::Result<Program> {
    let xs: Acc<DIM1, f32> = g.input();
    let ys: Acc<DIM1, f32> = g.input();
    g.compile(g.fold(|a, b| a + b, 0.0, g.zip_with(|x, y| x * y, xs, ys)))
}

#[test]
fn dotp() {
    both("dotp", build_dotp, check_dot);
}

#[test]
fn dot_blas() {
    both(
        "dotBlas",
        |g| {
            let xs: Acc<DIM1, f32> = g.input();
            let ys: Acc<DIM1, f32> = g.input();
            let dot = g.foreign(
                "blas.dot",
                |(a, b): (Acc<DIM1, f32>, Acc<DIM1, f32>)| g.fold(|x, y| x + y, 0.0, g.zip_with(|x, y| x * y, a, b)),
                (xs, ys),
            );
            g.compile(dot)
        },
        check_dot,
    );
}

#[test]
fn smvm() {
    both(
        "smvm",
        |g| {
            let segd: Acc<DIM1, i64> = g.input();
            let inds: Acc<DIM1, i64> = g.input();
            let vals: Acc<DIM1, f32> = g.input();
            let vec: Acc<DIM1, f32> = g.input();
            let vec_vals = g.backpermute(inds.shape(), |[i]| [inds.at([i])], vec);
            let products = g.zip_with(|a, b| a * b, vec_vals, vals);
            g.compile(g.fold_seg(|a, b| a + b, 0.0, products, segd))
        },
        |p| {
            let mut r = Rng::new(7);
            let (rows, cols) = (50usize, 40usize);
            let segd: Vec<i64> = (0..rows).map(|i| if i % 7 == 3 { 0 } else { r.below(9) as i64 }).collect();
            let nnz = segd.iter().sum::<i64>() as usize;
            let inds: Vec<i64> = (0..nnz).map(|_| r.below(cols as u64) as i64).collect();
            let vals: Vec<f32> = (0..nnz).map(|_| r.f32(-2.0, 2.0)).collect();
            let vec: Vec<f32> = (0..cols).map(|_| r.f32(-1.0, 1.0)).collect();
            let got: Array<f32> = p.run((&segd, &inds, &vals, &vec)).unwrap();
            assert_eq!(got.shape(), &[rows]);
            let mut at = 0;
            for (row, &len) in segd.iter().enumerate() {
                let mut want = 0.0f64;
                for k in at..at + len as usize {
                    want += vals[k] as f64 * vec[inds[k] as usize] as f64;
                }
                at += len as usize;
                assert!(close(got[row] as f64, want, 1e-5), "smvm row {row}: {} vs {want}", got[row]);
            }
        },
    );
}

fn cnd_ref(d: f64) -> f64 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    let c = 0.3989422804014327 * (-0.5 * d * d).exp() * poly;
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

fn cnd<'g>(g: &'g Graph<'_>, d: Exp<'g, f32>) -> Exp<'g, f32> {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    let c = 0.3989422804014327 * (-0.5 * d * d).exp() * poly;
    g.cond(d.gt(0.0), 1.0 - c, c)
}

#[test]
fn blackscholes() {
    both(
        "blackscholes",
        |g| {
            let opts: Acc<DIM1, (f32, f32, f32)> = g.input();
            let priced = g.map(
                |(price, strike, years)| {
                    let (r, v) = (0.02f32, 0.30f32);
                    let v_sqrt_t = v * years.sqrt();
                    let d1 = ((price / strike).ln() + (r + 0.5 * v * v) * years) / v_sqrt_t;
                    let d2 = d1 - v_sqrt_t;
                    let (cnd_d1, cnd_d2) = (cnd(g, d1), cnd(g, d2));
                    let x_exp_rt = strike * (-r * years).exp();
                    (price * cnd_d1 - x_exp_rt * cnd_d2, x_exp_rt * (1.0 - cnd_d2) - price * (1.0 - cnd_d1))
                },
                opts,
            );
            g.compile(priced)
        },
        |p| {
            let mut rng = Rng::new(11);
            let n = 1000;
            let price: Vec<f32> = (0..n).map(|_| rng.f32(5.0, 30.0)).collect();
            let strike: Vec<f32> = (0..n).map(|_| rng.f32(1.0, 100.0)).collect();
            let years: Vec<f32> = (0..n).map(|_| rng.f32(0.25, 10.0)).collect();
            let opts = ArrayView::<(f32, f32, f32)>::new(&[n], (&price, &strike, &years)).unwrap();
            let got: Array<(f32, f32)> = p.run(opts).unwrap();
            let (call, put) = got.leaves();
            for i in 0..n {
                let (s, x, t) = (price[i] as f64, strike[i] as f64, years[i] as f64);
                let (r, v) = (0.02, 0.30);
                let v_sqrt_t = v * t.sqrt();
                let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / v_sqrt_t;
                let d2 = d1 - v_sqrt_t;
                let x_exp_rt = x * (-r * t).exp();
                let want_call = s * cnd_ref(d1) - x_exp_rt * cnd_ref(d2);
                let want_put = x_exp_rt * (1.0 - cnd_ref(d2)) - s * (1.0 - cnd_ref(d1));
                assert!(close(call[i] as f64, want_call, 1e-4), "call {i}: {} vs {want_call}", call[i]);
                assert!(close(put[i] as f64, want_put, 1e-4), "put {i}: {} vs {want_put}", put[i]);
                assert_eq!(got.get(i), (call[i], put[i]));
            }
        },
    );
}

#[test]
fn histogram() {
    both(
        "histogram",
        |g| {
            let k = g.input_scalar::<i64>();
            let xs: Acc<DIM1, i32> = g.input();
            let ones = g.map(|_| 1, xs);
            g.compile(g.permute(|a, b| a + b, g.fill([k], 0), |[i]| [xs.at([i]).cast::<i64>()], ones))
        },
        |p| {
            let xs = vec![0, 0, 1, 2, 1, 1, 2, 4, 8, 3, 4, 9, 8, 3, 2, 5, 5, 3, 1, 2];
            let mut rng = Rng::new(3);
            let big: Vec<i32> = (0..5000).map(|_| rng.below(37) as i32).collect();
            for (k, xs) in [(10i64, xs), (37, big)] {
                let got: Array<i32> = p.run((k, &xs)).unwrap();
                let mut want = vec![0i32; k as usize];
                for &x in &xs {
                    want[x as usize] += 1;
                }
                assert_eq!(&got[..], &want[..]);
            }
        },
    );
}

#[test]
fn blur() {
    both(
        "blur",
        |g| {
            let img: Acc<DIM2, f32> = g.input();
            let blurred = g.stencil(
                W::<3>,
                |[[a, b, c], [d, e, f], [g_, h, i]]| {
                    (a + 2.0 * b + c + 2.0 * d + 4.0 * e + 2.0 * f + g_ + 2.0 * h + i) / 16.0
                },
                Boundary::clamp(),
                img,
            );
            g.compile(blurred)
        },
        |p| {
            let (rows, cols) = (13usize, 17usize);
            let mut rng = Rng::new(5);
            let img: Vec<f32> = (0..rows * cols).map(|_| rng.f32(0.0, 255.0)).collect();
            let got: Array<f32> = p.run(ArrayView::from_shape(&[rows, cols], &img).unwrap()).unwrap();
            assert_eq!(got.shape(), &[rows, cols]);
            let at = |r: isize, c: isize| {
                let r = r.clamp(0, rows as isize - 1) as usize;
                let c = c.clamp(0, cols as isize - 1) as usize;
                img[r * cols + c]
            };
            for r in 0..rows as isize {
                for c in 0..cols as isize {
                    let want = (at(r - 1, c - 1) + 2.0 * at(r - 1, c) + at(r - 1, c + 1)
                        + 2.0 * at(r, c - 1) + 4.0 * at(r, c) + 2.0 * at(r, c + 1)
                        + at(r + 1, c - 1) + 2.0 * at(r + 1, c) + at(r + 1, c + 1))
                        / 16.0;
                    assert_eq!(got[r as usize * cols + c as usize], want, "blur[{r},{c}]");
                }
            }
        },
    );
}

fn escape(x: i64, y: i64, width: i64, height: i64, limit: i32) -> i32 {
    let cx = -2.0f32 + 3.0f32 * x as f32 / width as f32;
    let cy = -1.2f32 + 2.4f32 * y as f32 / height as f32;
    let (mut zx, mut zy, mut n) = (0.0f32, 0.0f32, 0i32);
    while n < limit && zx * zx + zy * zy < 4.0 {
        let nx = zx * zx - zy * zy + cx;
        zy = 2.0 * zx * zy + cy;
        zx = nx;
        n += 1;
    }
    n
}

#[test]
fn mandelbrot() {
    both(
        "mandelbrot",
        |g| {
            let width = g.input_scalar::<i64>();
            let height = g.input_scalar::<i64>();
            let limit = g.input_scalar::<i32>();
            let counts = g.generate([height, width], |[y, x]| {
                let cx = -2.0 + 3.0 * x.cast::<f32>() / width.cast::<f32>();
                let cy = -1.2 + 2.4 * y.cast::<f32>() / height.cast::<f32>();
                let (_, _, n) = g.while_loop(
                    |(zx, zy, n)| n.lt(limit).and((zx * zx + zy * zy).lt(4.0)),
                    |(zx, zy, n)| (zx * zx - zy * zy + cx, 2.0 * zx * zy + cy, n + 1),
                    (0.0f32, 0.0f32, 0i32),
                );
                n
            });
            g.compile(counts)
        },
        |p| {
            let (width, height, limit) = (24i64, 16i64, 60i32);
            let got: Array<i32> = p.run((width, height, limit)).unwrap();
            assert_eq!(got.shape(), &[height as usize, width as usize]);
            let mut inside = 0;
            for y in 0..height {
                for x in 0..width {
                    let want = escape(x, y, width, height, limit);
                    inside += (want == limit) as i32;
                    assert_eq!(got[(y * width + x) as usize], want, "mandelbrot[{y},{x}]");
                }
            }
            assert!(inside > 0, "some points stay inside the set");
        },
    );
}
