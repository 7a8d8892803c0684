//! Every operation of LANGUAGE.md §2 and §3 and the standard library
//! through the builder, on the interpreter (the executable specification;
//! programs.rs covers the cpu backend), each checked against a plain Rust
//! computation of the same thing.
// The output types spelled out in full say what each test reads back.
#![allow(clippy::type_complexity)]

mod common;

use accel::{
    Acc, Array, ArrayView, Boundary, Exp, Ix, Spec, DIM0, DIM1, DIM2, DIM3, W,
};
use common::interp;

fn iota(n: usize) -> Vec<i64> {
    (0..n as i64).collect()
}

/// Rows of a row-major matrix.
fn rows<T: Copy>(v: &[T], cols: usize) -> Vec<Vec<T>> {
    v.chunks(cols).map(|c| c.to_vec()).collect()
}

// --- §2 scalar expressions ---------------------------------------------------

#[test]
fn integer_division_and_remainders() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let a: Acc<DIM1, i32> = g.input();
    let b: Acc<DIM1, i32> = g.input();
    let r = g.zip_with(|x, y| (x / y, x % y, x.div_floor(y), x.mod_floor(y), x.quot(y)), a, b);
    let p = g.compile(r).unwrap();
    let (xs, ys) = (vec![7, -7, 7, -7, 9, -9], vec![2, 2, -2, -2, 4, 5]);
    let out: Array<(i32, i32, i32, i32, i32)> = p.run((&xs, &ys)).unwrap();
    for i in 0..xs.len() {
        let (x, y): (i32, i32) = (xs[i], ys[i]);
        let want = (x / y, x % y, 0, 0, x / y);
        let (q, r, d, m, q2) = out.get(i);
        assert_eq!((q, r, q2), (want.0, want.1, want.4), "quot/rem of {x} {y}");
        // floor division and the modulus with the divisor's sign
        let fd = (x as f64 / y as f64).floor() as i32;
        assert_eq!(d, fd, "div {x} {y}");
        assert_eq!(m, x - y * fd, "mod {x} {y}");
    }
}

#[test]
fn wrapping_conversions_and_rounding() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let a: Acc<DIM1, u8> = g.input();
    let f: Acc<DIM1, f64> = g.input();
    let wrapped = g.map(|x| x + 100u8, a);
    let conv = g.map(|x: Exp<f64>| (x.round::<i32>(), x.floor::<i64>(), x.ceiling::<i16>(), x.truncate::<i8>(), x.cast::<u8>()), f);
    let neg = g.map(|x: Exp<u8>| x.cast::<i32>().cast::<f32>(), a);
    let p = g.compile((wrapped, conv, neg)).unwrap();
    let bytes = vec![200u8, 0, 155, 156, 255];
    let floats = vec![-2.5f64, 2.5, 1.5, 0.5, -0.7, 3.7, -1.0];
    let (w, c, n): (Array<u8>, Array<(i32, i64, i16, i8, u8)>, Array<f32>) = p.run((&bytes, &floats)).unwrap();
    let want_w: Vec<u8> = bytes.iter().map(|b| b.wrapping_add(100)).collect();
    assert_eq!(&w[..], &want_w[..]);
    for (i, &x) in floats.iter().enumerate() {
        let even = {
            let r = x.round();
            if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 { r - x.signum() } else { r }
        };
        assert_eq!(c.get(i), (even as i32, x.floor() as i64, x.ceil() as i16, x.trunc() as i8, x as u8), "{x}");
    }
    let want_n: Vec<f32> = bytes.iter().map(|&b| b as f32).collect();
    assert_eq!(&n[..], &want_n[..]);
}

#[test]
fn arithmetic_bits_comparisons_and_logic() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let a: Acc<DIM1, i64> = g.input();
    let b: Acc<DIM1, i64> = g.input();
    let arith = g.zip_with(|x, y| (x + y, x - y, x * y, -x, x.abs(), x.signum(), x.min(y), x.max(y)), a, b);
    let bits = g.zip_with(|x, y| (x & y, x | y, x ^ y, !x, x << 3, x >> 1, x.count_ones(), x.leading_zeros()), a, b);
    let cmps = g.zip_with(
        |x, y| (x.lt(y), x.le(y), x.gt(y), x.ge(y), x.eq(y), x.ne(y), x.lt(y).and(y.gt(0)), !(x.lt(y).or(x.even()))),
        a,
        b,
    );
    let p = g.compile((arith, bits, cmps)).unwrap();
    let xs = vec![5i64, -3, 0, 12, -8, 7];
    let ys = vec![3i64, -3, 4, -1, 2, 7];
    type Eight<T> = (T, T, T, T, T, T, T, T);
    let (ar, bi, cm): (Array<Eight<i64>>, Array<Eight<i64>>, Array<Eight<bool>>) = p.run((&xs, &ys)).unwrap();
    for i in 0..xs.len() {
        let (x, y) = (xs[i], ys[i]);
        assert_eq!(ar.get(i), (x + y, x - y, x * y, -x, x.abs(), x.signum(), x.min(y), x.max(y)));
        assert_eq!(
            bi.get(i),
            (x & y, x | y, x ^ y, !x, x << 3, x >> 1, x.count_ones() as i64, x.leading_zeros() as i64)
        );
        assert_eq!(cm.get(i), (x < y, x <= y, x > y, x >= y, x == y, x != y, x < y && y > 0, !(x < y || x % 2 == 0)));
    }
}

#[test]
fn floating_functions() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let a: Acc<DIM1, f64> = g.input();
    let r = g.map(
        |x: Exp<f64>| {
            let y = x.abs() + 0.5;
            (
                (y.sqrt(), y.exp(), y.ln(), x.sin(), x.cos(), x.tan(), (x / 4.0).asin(), (x / 4.0).acos()),
                (x.atan(), x.sinh(), x.cosh(), x.tanh(), x.atan2(y), y.powf(1.5), y.log(2.0), (x / 0.0).is_infinite()),
            )
        },
        a,
    );
    let p = g.compile(r).unwrap();
    let xs = vec![-2.0f64, -0.5, 0.25, 1.0, 3.0];
    type Eight = (f64, f64, f64, f64, f64, f64, f64, f64);
    let out: Array<(Eight, (f64, f64, f64, f64, f64, f64, f64, bool))> = p.run(&xs).unwrap();
    for (i, &x) in xs.iter().enumerate() {
        let y = x.abs() + 0.5;
        let (a, b) = out.get(i);
        let want_a = [y.sqrt(), y.exp(), y.ln(), x.sin(), x.cos(), x.tan(), (x / 4.0).asin(), (x / 4.0).acos()];
        let got_a = [a.0, a.1, a.2, a.3, a.4, a.5, a.6, a.7];
        let want_b = [x.atan(), x.sinh(), x.cosh(), x.tanh(), x.atan2(y), y.powf(1.5), y.log(2.0)];
        let got_b = [b.0, b.1, b.2, b.3, b.4, b.5, b.6];
        for (g, w) in got_a.iter().zip(&want_a).chain(got_b.iter().zip(&want_b)) {
            assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{x}: {g} vs {w}");
        }
        assert_eq!(b.7, x != 0.0, "isInfinite ({x} / 0)");
    }
}

#[test]
fn while_loops_reads_shapes_and_sizes() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM2, i32> = g.input();
    // Collatz steps of each element, plus reads by index and position
    let steps = g.map(
        |x: Exp<i32>| {
            let (_, n) = g.while_loop(
                |(v, _): (Exp<i32>, Exp<i32>)| v.ne(1),
                |(v, n)| (g.cond(v.even(), v / 2, v * 3 + 1), n + 1),
                (x, 0),
            );
            n
        },
        xs,
    );
    let [r, c] = xs.shape();
    let corners = g.generate([2, 2], |[i, j]| {
        xs.at([i * (r - 1), j * (c - 1)]) + xs.at_linear(xs.size() - 1) + c.cast::<i32>()
    });
    let p = g.compile((steps, corners)).unwrap();
    let data: Vec<i32> = (1..=12).collect();
    let (s, k): (Array<i32>, Array<i32>) = p.run(ArrayView::from_shape(&[3, 4], &data).unwrap()).unwrap();
    let collatz = |mut v: i32| {
        let mut n = 0;
        while v != 1 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            n += 1;
        }
        n
    };
    assert_eq!(s.to_vec(), data.iter().map(|&v| collatz(v)).collect::<Vec<_>>());
    let m = rows(&data, 4);
    let want: Vec<i32> = [(0, 0), (0, 3), (2, 0), (2, 3)].iter().map(|&(i, j)| m[i][j] + 12 + 4).collect();
    assert_eq!(&k[..], &want[..]);
    assert_eq!(k.shape(), &[2, 2]);
}

// --- §3.1 producers -------------------------------------------------------------

#[test]
fn unit_the_fill_generate_zip_with3() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let n = g.input_scalar::<i64>();
    let xs: Acc<DIM1, f32> = g.input();
    let u = g.unit(n * 2);
    let filled = g.fill([n, g.constant(2i64)], 1.5f32);
    let gen = g.generate([n], |[i]| (i * i, i.cast::<f32>() + u.the().cast::<f32>()));
    let z3 = g.zip_with3(|a, b, c| a * b + c, xs, xs, g.map(|x| x - 1.0, xs));
    let p = g.compile((u, filled, gen, z3)).unwrap();
    let data = vec![1.0f32, -2.0, 0.5];
    let (u, f, gen, z): (Array<i64>, Array<f32>, Array<(i64, f32)>, Array<f32>) = p.run((3i64, &data)).unwrap();
    assert_eq!((u.rank(), u[0]), (0, 6));
    assert_eq!((f.shape(), &f[..]), (&[3usize, 2][..], &[1.5f32; 6][..]));
    assert_eq!(gen.to_vec(), (0..3).map(|i| (i * i, i as f32 + 6.0)).collect::<Vec<_>>());
    assert_eq!(z.to_vec(), data.iter().map(|&x| x * x + (x - 1.0)).collect::<Vec<_>>());
}

#[test]
fn backpermute_reshape_replicate_slice() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let m: Acc<DIM2, i64> = g.input();
    let v: Acc<DIM1, i64> = g.input();
    let [r, c] = m.shape();
    let transposed = g.backpermute([c, r], |[i, j]| [j, i], m);
    let reshaped = g.reshape([c * r], m);
    let rows4 = g.replicate([4.into(), Spec::All], v);
    let cols4 = g.replicate([Spec::All, Spec::Int(g.constant(4i64))], v);
    let row2: Acc<DIM1, i64> = g.slice(m, &[2.into(), Spec::All]);
    let p = g.compile((transposed, reshaped, rows4, cols4, row2)).unwrap();
    let data = iota(50);
    let vec10 = iota(10);
    let (t, re, r4, c4, s2): (Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>) =
        p.run((ArrayView::from_shape(&[5, 10], &data).unwrap(), &vec10)).unwrap();
    assert_eq!(t.shape(), &[10, 5]);
    for i in 0..10 {
        for j in 0..5 {
            assert_eq!(t[i * 5 + j], data[j * 10 + i]);
        }
    }
    assert_eq!(&re[..], &data[..]);
    assert_eq!(r4.shape(), &[4, 10]);
    assert_eq!(r4.to_vec(), (0..4).flat_map(|_| vec10.clone()).collect::<Vec<_>>());
    assert_eq!(c4.shape(), &[10, 4]);
    assert_eq!(c4.to_vec(), vec10.iter().flat_map(|&x| [x; 4]).collect::<Vec<_>>());
    assert_eq!(&s2[..], &data[20..30]);
}

#[test]
fn enumerations_zip_unzip_indexed() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let n = g.input_scalar::<i64>();
    let e = g.enum_from_n([n], 3i32);
    let es = g.enum_from_step_n([g.constant(2i64), n], 1.0f64, 0.5);
    let z = g.zip(e, g.map(|x| x.cast::<f64>() * 2.0, e));
    let (a, b) = g.unzip(z);
    let (p1, p2, p3) = g.unzip3(g.map(|(x, y)| (x, y, x.cast::<i64>()), z));
    let ix = g.indexed(es);
    let p = g.compile((e, es, a, b, p1, p2, p3, ix)).unwrap();
    type Out = (Array<i32>, Array<f64>, Array<i32>, Array<f64>, Array<i32>, Array<f64>, Array<i64>, Array<(Ix<2>, f64)>);
    let (e, es, a, b, p1, p2, p3, ix): Out = p.run(4i64).unwrap();
    let want_e: Vec<i32> = (0..4).map(|k| 3 + k).collect();
    assert_eq!(&e[..], &want_e[..]);
    let want_es: Vec<f64> = (0..8).map(|k| 1.0 + 0.5 * k as f64).collect();
    assert_eq!((es.shape(), &es[..]), (&[2usize, 4][..], &want_es[..]));
    assert_eq!(&a[..], &want_e[..]);
    assert_eq!(b.to_vec(), want_e.iter().map(|&x| x as f64 * 2.0).collect::<Vec<_>>());
    assert_eq!((&p1[..], &p2[..]), (&a[..], &b[..]));
    assert_eq!(p3.to_vec(), want_e.iter().map(|&x| x as i64).collect::<Vec<_>>());
    for (k, &w) in want_es.iter().enumerate() {
        assert_eq!(ix.get(k), (Ix([k as i64 / 4, k as i64 % 4]), w));
    }
}

#[test]
fn structural_stdlib() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let m: Acc<DIM2, i64> = g.input();
    let v: Acc<DIM1, i64> = g.input();
    let outs = (
        g.reverse(m),
        g.transpose(m),
        g.flatten(m),
        g.take(3, m),
        g.drop(3, m),
        g.init(m),
        g.tail(m),
        g.slit(2, 4, m),
    );
    let more = (g.concat(v, v), g.take(-1, v), g.drop(100, v));
    let p = g.compile((outs, more)).unwrap();
    let data = iota(15);
    let vec5 = vec![4i64, 8, 15, 16, 23];
    type Eight = (Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>);
    let (o, (cat, t0, d0)): (Eight, (Array<i64>, Array<i64>, Array<i64>)) =
        p.run((ArrayView::from_shape(&[3, 5], &data).unwrap(), &vec5)).unwrap();
    let m = rows(&data, 5);
    let per_row = |f: &dyn Fn(&Vec<i64>) -> Vec<i64>| m.iter().flat_map(f).collect::<Vec<_>>();
    assert_eq!(&o.0[..], &per_row(&|r| r.iter().rev().copied().collect())[..]);
    assert_eq!(o.1.shape(), &[5, 3]);
    assert_eq!(o.1.to_vec(), (0..5).flat_map(|j| (0..3).map(move |i| (i * 5 + j) as i64)).collect::<Vec<_>>());
    assert_eq!(&o.2[..], &data[..]);
    assert_eq!(&o.3[..], &per_row(&|r| r[..3].to_vec())[..]);
    assert_eq!(&o.4[..], &per_row(&|r| r[3..].to_vec())[..]);
    assert_eq!(&o.5[..], &per_row(&|r| r[..4].to_vec())[..]);
    assert_eq!(&o.6[..], &per_row(&|r| r[1..].to_vec())[..]);
    assert_eq!(&o.7[..], &per_row(&|r| r[2..5].to_vec())[..]);
    assert_eq!(o.7.shape(), &[3, 3]);
    assert_eq!(cat.to_vec(), [vec5.clone(), vec5.clone()].concat());
    assert!(t0.is_empty() && d0.is_empty());
}

#[test]
fn gather_scatter_filter_compact() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, f32> = g.input();
    let idx: Acc<DIM1, i64> = g.input();
    let m: Acc<DIM2, i32> = g.input();
    let gathered = g.gather(idx, xs);
    let gathered2 = g.gather(g.map(|i| [i % 2, i % 3], idx), m);
    let scattered = g.scatter(idx, g.fill([8], 0.0f32), g.map(|i| i.cast::<f32>() * 10.0, idx));
    let (kept, counts) = g.filter(|x: Exp<f32>| x.gt(0.0), xs);
    let (kept2, counts2) = g.compact(g.map(|x| x.odd(), m), m);
    let p = g.compile((gathered, gathered2, scattered, kept, counts, kept2, counts2)).unwrap();
    let data = vec![3.0f32, -1.0, 4.0, -1.5, 5.0, 9.0, -2.0, 6.0];
    let ind = vec![7i64, 0, 5, 2];
    let mat: Vec<i32> = (1..=6).collect();
    type Out = (Array<f32>, Array<i32>, Array<f32>, Array<f32>, Array<i64>, Array<i32>, Array<i64>);
    let (ga, ga2, sc, k, c, k2, c2): Out =
        p.run((&data, &ind, ArrayView::from_shape(&[2, 3], &mat).unwrap())).unwrap();
    assert_eq!(ga.to_vec(), ind.iter().map(|&i| data[i as usize]).collect::<Vec<_>>());
    assert_eq!(ga2.to_vec(), ind.iter().map(|&i| mat[(i % 2 * 3 + i % 3) as usize]).collect::<Vec<_>>());
    let mut want_sc = [0.0f32; 8];
    for &i in &ind {
        want_sc[i as usize] = i as f32 * 10.0;
    }
    assert_eq!(&sc[..], &want_sc[..]);
    let pos: Vec<f32> = data.iter().copied().filter(|&x| x > 0.0).collect();
    assert_eq!((&k[..], c.rank(), c[0]), (&pos[..], 0, pos.len() as i64));
    let odd: Vec<i32> = mat.iter().copied().filter(|x| x % 2 != 0).collect();
    assert_eq!(&k2[..], &odd[..]);
    assert_eq!(c2.to_vec(), rows(&mat, 3).iter().map(|r| r.iter().filter(|x| *x % 2 != 0).count() as i64).collect::<Vec<_>>());
}

// --- §3.2 reductions ---------------------------------------------------------------

#[test]
fn folds() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let m: Acc<DIM2, i64> = g.input();
    let seg: Acc<DIM1, i64> = g.input();
    let off: Acc<DIM1, i64> = g.input();
    let f = g.fold(|a, b| a + b, 42, m);
    let f1 = g.fold1(|a, b| a.max(b), m);
    let fa = g.fold_all(|a, b| a + b, 0, m);
    let f1a = g.fold1_all(|a, b| a.min(b), m);
    let fs = g.fold_seg(|a, b| a + b, 0, m, seg);
    let fso = g.fold_seg_offsets(|a, b| a + b, 0, m, off);
    let f1s = g.fold1_seg(|a, b| a.max(b), m, g.map(|x| x.max(1), seg));
    let p = g.compile((f, f1, fa, f1a, fs, fso, f1s)).unwrap();
    let data = iota(50);
    let segs = vec![1i64, 4, 0, 3];
    let offs = vec![0i64, 1, 5, 5, 8];
    type Out = (Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>);
    let (f, f1, fa, f1a, fs, fso, f1s): Out =
        p.run((ArrayView::from_shape(&[5, 10], &data).unwrap(), &segs, &offs)).unwrap();
    let m = rows(&data, 10);
    assert_eq!(f.to_vec(), m.iter().map(|r| 42 + r.iter().sum::<i64>()).collect::<Vec<_>>());
    assert_eq!(f1.to_vec(), m.iter().map(|r| *r.iter().max().unwrap()).collect::<Vec<_>>());
    assert_eq!((fa[0], f1a[0]), (data.iter().sum(), 0));
    let seg_sums = |lens: &[i64], op: &dyn Fn(&[i64]) -> i64| -> Vec<i64> {
        m.iter()
            .flat_map(|r| {
                let mut at = 0;
                lens.iter()
                    .map(|&l| {
                        let s = op(&r[at..at + l as usize]);
                        at += l as usize;
                        s
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let sum = |s: &[i64]| s.iter().sum::<i64>();
    assert_eq!(fs.shape(), &[5, 4]);
    assert_eq!(fs.to_vec(), seg_sums(&segs, &sum));
    assert_eq!(&fs[..4], &[0, 10, 0, 18]); // LANGUAGE.md §3.2's example
    assert_eq!(fso.to_vec(), seg_sums(&segs, &sum));
    let lens1: Vec<i64> = segs.iter().map(|&x| x.max(1)).collect();
    assert_eq!(f1s.to_vec(), seg_sums(&lens1, &|s: &[i64]| *s.iter().max().unwrap()));
}

#[test]
fn stdlib_reductions() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let m: Acc<DIM2, f64> = g.input();
    let b: Acc<DIM2, bool> = g.input();
    let outs = (
        g.sum(m),
        g.product(m),
        g.maximum(m),
        g.minimum(m),
        g.and(b),
        g.or(b),
        g.all(|x: Exp<f64>| x.gt(0.0), m),
        g.any(|x: Exp<f64>| x.gt(3.0), m),
    );
    let p = g.compile(outs).unwrap();
    let data = vec![1.0, 2.0, 3.0, -1.0, 0.5, 4.0];
    let bools = vec![true, true, true, false, true, false];
    type Out = (Array<f64>, Array<f64>, Array<f64>, Array<f64>, Array<bool>, Array<bool>, Array<bool>, Array<bool>);
    let o: Out = p
        .run((ArrayView::from_shape(&[2, 3], &data).unwrap(), ArrayView::from_shape(&[2, 3], &bools).unwrap()))
        .unwrap();
    let (m, bm) = (rows(&data, 3), rows(&bools, 3));
    let each = |f: &dyn Fn(&Vec<f64>) -> f64| m.iter().map(f).collect::<Vec<_>>();
    assert_eq!(o.0.to_vec(), each(&|r| r.iter().sum()));
    assert_eq!(o.1.to_vec(), each(&|r| r.iter().product()));
    assert_eq!(o.2.to_vec(), each(&|r| r.iter().cloned().fold(f64::MIN, f64::max)));
    assert_eq!(o.3.to_vec(), each(&|r| r.iter().cloned().fold(f64::MAX, f64::min)));
    assert_eq!(o.4.to_vec(), bm.iter().map(|r| r.iter().all(|&x| x)).collect::<Vec<_>>());
    assert_eq!(o.5.to_vec(), bm.iter().map(|r| r.iter().any(|&x| x)).collect::<Vec<_>>());
    assert_eq!(o.6.to_vec(), m.iter().map(|r| r.iter().all(|&x| x > 0.0)).collect::<Vec<_>>());
    assert_eq!(o.7.to_vec(), m.iter().map(|r| r.iter().any(|&x| x > 3.0)).collect::<Vec<_>>());
}

// --- §3.3 scans ----------------------------------------------------------------------

fn scanl_ref(f: impl Fn(i64, i64) -> i64, z: i64, xs: &[i64]) -> Vec<i64> {
    let mut out = vec![z];
    for &x in xs {
        out.push(f(*out.last().unwrap(), x));
    }
    out
}

fn scanr_ref(f: impl Fn(i64, i64) -> i64, z: i64, xs: &[i64]) -> Vec<i64> {
    let mut out = vec![z];
    for &x in xs.iter().rev() {
        out.insert(0, f(x, out[0]));
    }
    out
}

fn add<'g>(a: Exp<'g, i64>, b: Exp<'g, i64>) -> Exp<'g, i64> {
    a + b
}

fn sub<'g>(a: Exp<'g, i64>, b: Exp<'g, i64>) -> Exp<'g, i64> {
    a - b
}

#[test]
fn scans() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, i64> = g.input();
    let (lp, lt) = g.scanl_prime(add, 10, xs);
    let (rp, rt) = g.scanr_prime(add, 10, xs);
    let outs = (
        g.scanl(add, 10, xs),
        g.scanl1(add, xs),
        g.scanr(sub, 100, xs),
        g.scanr1(add, xs),
        g.prescanl(add, 10, xs),
        g.postscanl(add, 10, xs),
        g.prescanr(add, 10, xs),
        g.postscanr(add, 10, xs),
    );
    let p = g.compile((outs, (lp, lt, rp, rt), g.scanl(sub, 100, xs))).unwrap();
    for data in [iota(10), vec![1, 2, 3]] {
        type Eight = (Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>);
        let (o, (lp, lt, rp, rt), lsub): (Eight, (Array<i64>, Array<i64>, Array<i64>, Array<i64>), Array<i64>) =
            p.run(&data).unwrap();
        let plus = |a, b| a + b;
        let sl = scanl_ref(plus, 10, &data);
        let sr = scanr_ref(plus, 10, &data);
        assert_eq!(o.0.to_vec(), sl);
        assert_eq!(o.1.to_vec(), scanl_ref(plus, 0, &data)[1..].to_vec());
        assert_eq!(o.2.to_vec(), scanr_ref(|a, b| a - b, 100, &data));
        assert_eq!(o.3.to_vec(), scanr_ref(plus, 0, &data)[..data.len()].to_vec());
        assert_eq!(o.4.to_vec(), sl[..data.len()].to_vec());
        assert_eq!(o.5.to_vec(), sl[1..].to_vec());
        assert_eq!(o.6.to_vec(), sr[1..].to_vec());
        assert_eq!(o.7.to_vec(), sr[..data.len()].to_vec());
        assert_eq!((lp.to_vec(), lt[0]), (sl[..data.len()].to_vec(), sl[data.len()]));
        assert_eq!((rp.to_vec(), rt[0]), (sr[1..].to_vec(), sr[0]));
        assert_eq!(lsub.to_vec(), scanl_ref(|a, b| a - b, 100, &data));
    }
}

#[test]
fn segmented_scans() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, i64> = g.input();
    let seg: Acc<DIM1, i64> = g.input();
    let (lp, lt) = g.scanl_prime_seg(add, 0, xs, seg);
    let outs = (
        g.scanl_seg(add, 0, xs, seg),
        g.scanl1_seg(add, xs, g.map(|l| l.max(1), seg)),
        g.scanr_seg(add, 0, xs, seg),
        g.prescanl_seg(add, 0, xs, seg),
        g.postscanl_seg(add, 0, xs, seg),
        lp,
        lt,
    );
    let p = g.compile(outs).unwrap();
    let data = iota(8);
    let segs = vec![3i64, 0, 3, 1];
    type Out = (Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>, Array<i64>);
    let o: Out = p.run((&data, &segs)).unwrap();
    let split = |lens: &[i64]| {
        let mut at = 0;
        lens.iter()
            .map(|&l| {
                at += l as usize;
                data[at - l as usize..at].to_vec()
            })
            .collect::<Vec<_>>()
    };
    let pieces = split(&segs);
    let plus = |a, b| a + b;
    let cat = |f: &dyn Fn(&Vec<i64>) -> Vec<i64>| pieces.iter().flat_map(f).collect::<Vec<_>>();
    assert_eq!(o.0.to_vec(), cat(&|s| scanl_ref(plus, 0, s)));
    assert_eq!(o.2.to_vec(), cat(&|s| scanr_ref(plus, 0, s)));
    assert_eq!(o.3.to_vec(), cat(&|s| scanl_ref(plus, 0, s)[..s.len()].to_vec()));
    assert_eq!(o.4.to_vec(), cat(&|s| scanl_ref(plus, 0, s)[1..].to_vec()));
    assert_eq!(o.5.to_vec(), o.3.to_vec());
    assert_eq!(o.6.to_vec(), pieces.iter().map(|s| s.iter().sum::<i64>()).collect::<Vec<_>>());
    let ones: Vec<i64> = segs.iter().map(|&l| l.max(1)).collect();
    let want1: Vec<i64> = split(&ones).iter().flat_map(|s| scanl_ref(plus, 0, s)[1..].to_vec()).collect();
    assert_eq!(o.1.to_vec(), want1);
}

#[test]
fn segments_of_every_integer_type() {
    // CSR code has i32 row lengths and u32 offsets: no conversion needed
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, f32> = g.input();
    let seg: Acc<DIM1, i32> = g.input();
    let small: Acc<DIM1, u8> = g.input();
    let offsets: Acc<DIM1, u32> = g.input();
    let outs = (
        g.fold_seg(|a, b| a + b, 0.0, xs, seg),
        g.fold1_seg(|a, b| a.max(b), xs, small),
        g.fold_seg_offsets(|a, b| a + b, 0.0, xs, offsets),
        g.scanl_seg(|a, b| a + b, 0.0, xs, small),
    );
    let p = g.compile(outs).unwrap();
    let data: Vec<f32> = (0..9).map(|k| (k * k % 7) as f32).collect();
    let lens = vec![2i32, 0, 4, 3];
    let lens8 = vec![1u8, 5, 3];
    let offs = vec![0u32, 4, 4, 9];
    let pieces = |lens: &[usize]| {
        let mut at = 0;
        lens.iter()
            .map(|&l| {
                at += l;
                data[at - l..at].to_vec()
            })
            .collect::<Vec<_>>()
    };
    let (sums, maxes, by_offsets, scanned): (Array<f32>, Array<f32>, Array<f32>, Array<f32>) =
        p.run((&data, &lens, &lens8, &offs)).unwrap();
    let sum = |v: &Vec<f32>| v.iter().sum::<f32>();
    assert_eq!(sums.to_vec(), pieces(&[2, 0, 4, 3]).iter().map(sum).collect::<Vec<_>>());
    let max = |v: &Vec<f32>| v.iter().copied().fold(f32::MIN, f32::max);
    assert_eq!(maxes.to_vec(), pieces(&[1, 5, 3]).iter().map(max).collect::<Vec<_>>());
    assert_eq!(by_offsets.to_vec(), pieces(&[4, 0, 5]).iter().map(sum).collect::<Vec<_>>());
    let want_scan: Vec<f32> = pieces(&[1, 5, 3])
        .iter()
        .flat_map(|s| std::iter::once(0.0).chain(s.iter().scan(0.0, |acc, &x| {
            *acc += x;
            Some(*acc)
        })).collect::<Vec<_>>())
        .collect();
    assert_eq!(scanned.to_vec(), want_scan);

    // a negative length is a runtime error naming the segment
    let bad = vec![2i32, -1, 4, 3];
    let err = p.run::<_, (Array<f32>, Array<f32>, Array<f32>, Array<f32>)>((&data, &bad, &lens8, &offs)).unwrap_err();
    assert_eq!(err.category(), accel::Category::Run, "{err:?}");
}

#[test]
fn zip_n_and_length() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let a: Acc<DIM1, i32> = g.input();
    let b: Acc<DIM1, f64> = g.input();
    let c: Acc<DIM1, u8> = g.input();
    let m: Acc<DIM2, i16> = g.input();
    let z3 = g.zip3(a, b, c);
    let z4 = g.zip4(c, a, b, g.map(|x| x.cast::<i64>() * 10, a));
    let (w, x, y, v) = g.unzip4(z4);
    let lengths = g.unit(a.length() * 1000 + m.length());
    let p = g.compile((z3, v, w, x, y, lengths)).unwrap();
    let (av, bv, cv) = (vec![1i32, 2, 3, 4], vec![0.5f64, 1.5, 2.5], vec![7u8, 8, 9, 10, 11]);
    let mv: Vec<i16> = (0..6).collect();
    type Out = (Array<(i32, f64, u8)>, Array<i64>, Array<u8>, Array<i32>, Array<f64>, Array<i64>);
    let (t, v, w, x, y, lengths): Out =
        p.run((&av, &bv, &cv, ArrayView::from_shape(&[2, 3], &mv).unwrap())).unwrap();
    // the extent is the intersection: 3
    assert_eq!(t.shape(), &[3]);
    for i in 0..3 {
        assert_eq!(t.get(i), (av[i], bv[i], cv[i]));
    }
    assert_eq!((&w[..], &x[..], &y[..]), (&cv[..3], &av[..3], &bv[..3]));
    assert_eq!(v.to_vec(), av[..3].iter().map(|&k| k as i64 * 10).collect::<Vec<_>>());
    assert_eq!(lengths[0], av.len() as i64 * 1000 + 3);
}

#[test]
fn iterate_and_sfoldl() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let m: Acc<DIM2, i32> = g.input();
    let v: Acc<DIM1, f64> = g.input();
    let n = g.input_scalar::<i64>();
    // iterate: x -> 3x + 1 (mod 1000), n times, from each element of v's index
    let it = g.generate([g.constant(6i64)], |[i]| g.iterate(n, |x| (x * 3 + 1) % 1000, i));
    // sfoldl over each row of m: (sum as f64, count), an accumulator type
    // other than the elements'
    let rows = g.generate([m.shape()[0]], |[r]| {
        g.sfoldl(|(s, c), x| (s + x.cast::<f64>() * 0.5, c + 1), (0.0f64, 0i64), [r], m)
    });
    // and on a vector, with the empty index
    let total = g.unit(g.sfoldl(|a, x| a * 2.0 + x, 0.0f64, Ix([]), v));
    let p = g.compile((it, rows, total)).unwrap();
    let mv: Vec<i32> = (0..12).map(|k| k * k - 20).collect();
    let vv = vec![1.0f64, 0.0, 1.0, 1.0];
    for steps in [0i64, 1, 7] {
        let (it, rows, total): (Array<i64>, Array<(f64, i64)>, Array<f64>) =
            p.run((ArrayView::from_shape(&[3, 4], &mv).unwrap(), &vv, steps)).unwrap();
        let want: Vec<i64> = (0..6)
            .map(|i| (0..steps).fold(i, |x, _| (x * 3 + 1) % 1000))
            .collect();
        assert_eq!(it.to_vec(), want, "iterate {steps}");
        for r in 0..3 {
            let row = &mv[r * 4..r * 4 + 4];
            assert_eq!(rows.get(r), (row.iter().map(|&x| x as f64 * 0.5).sum::<f64>(), 4));
        }
        assert_eq!(total[0], vv.iter().fold(0.0, |a, &x| a * 2.0 + x));
    }
}

// --- §3.4 permutations and §3.6 expansion ----------------------------------------------

#[test]
fn permute_with_ignore_and_the_sieve() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, i64> = g.input();
    let ps: Acc<DIM1, i64> = g.input();
    let n = g.input_scalar::<i64>();
    // keep the even values only, summed into value % 5
    let buckets = g.permute(
        |a, b| a + b,
        g.fill([5], 0i64),
        |[i]| {
            let x = xs.at([i]);
            g.cond(x.even(), [x % 5], g.ignore())
        },
        xs,
    );
    // LANGUAGE.md §3.6: the multiples of each prime below n
    let marks = g.permute_pairs(
        |a, b| a + b,
        g.fill([n], 0i32),
        g.expand(
            |p| (n - p).quot(p),
            |p, k| {
                let m = (k + 2) * p;
                (g.cond(m.lt(n), [m], g.ignore()), 1i32)
            },
            ps,
        ),
    );
    let p = g.compile((buckets, marks)).unwrap();
    let data: Vec<i64> = vec![4, 7, 10, 12, 3, 8, 14, 22, 5, 6];
    let primes = vec![2i64, 3, 5, 7];
    let (b, m): (Array<i64>, Array<i32>) = p.run((&data, &primes, 50i64)).unwrap();
    let mut want = [0i64; 5];
    for &x in data.iter().filter(|x| *x % 2 == 0) {
        want[(x % 5) as usize] += x;
    }
    assert_eq!(&b[..], &want[..]);
    let want_m: Vec<i32> = (0..50).map(|v| primes.iter().filter(|&&p| v >= 2 * p && v % p == 0).count() as i32).collect();
    assert_eq!(&m[..], &want_m[..]);
}

#[test]
fn expand_alone() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, i32> = g.input();
    let e = g.expand(|x: Exp<i32>| x.cast::<i64>(), |x, k| (x, k.cast::<i32>() * 10), xs);
    let p = g.compile(e).unwrap();
    let data = vec![2, 0, 3, 1];
    let out: Array<(i32, i32)> = p.run(&data).unwrap();
    let want: Vec<(i32, i32)> = data.iter().flat_map(|&x| (0..x).map(move |k| (x, k * 10))).collect();
    assert_eq!(out.to_vec(), want);
}

// --- §3.5 stencils ---------------------------------------------------------------------

fn bounded(i: isize, n: isize, how: &str) -> Option<isize> {
    if (0..n).contains(&i) {
        return Some(i);
    }
    match how {
        "clamp" => Some(i.clamp(0, n - 1)),
        "mirror" => Some(if i < 0 { -i } else { 2 * n - 2 - i }),
        "wrap" => Some(if i < 0 { n + i } else { i - n }),
        _ => None,
    }
}

fn five<'g>([a, b, c, d, e]: [Exp<'g, i32>; 5]) -> Exp<'g, i32> {
    a + 2 * b + 3 * c + 4 * d + 5 * e
}

#[test]
fn stencils_and_boundaries() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, i32> = g.input();
    let m: Acc<DIM2, i32> = g.input();
    let mirror = g.stencil(W::<5>, five, Boundary::mirror(), xs);
    let wrap = g.stencil(W::<5>, five, Boundary::wrap(), xs);
    let constant = g.stencil(W::<5>, five, Boundary::constant(&g, -1), xs);
    let function = g.stencil(W::<5>, five, Boundary::function(&g, |[i]: [Exp<i64>; 1]| i.cast::<i32>() * 100), xs);
    let rect = g.stencil(
        (W::<3>, W::<5>),
        |[r0, r1, r2]: [[Exp<i32>; 5]; 3]| r0[0] + r1[2] * 10 + r2[4] * 100,
        Boundary::clamp(),
        m,
    );
    let two = g.stencil2(
        W::<3>,
        W::<3>,
        |[a, _, c], [d, e, f]| a * c + d + e + f,
        Boundary::clamp(),
        xs,
        Boundary::wrap(),
        xs,
    );
    let p = g.compile((mirror, wrap, constant, function, rect, two)).unwrap();
    let data = vec![3, 1, 4, 1, 5, 9, 2];
    let mat: Vec<i32> = (0..20).collect();
    type Out = (Array<i32>, Array<i32>, Array<i32>, Array<i32>, Array<i32>, Array<i32>);
    let o: Out = p.run((&data, ArrayView::from_shape(&[4, 5], &mat).unwrap())).unwrap();
    let n = data.len() as isize;
    let read = |i: isize, how: &str| match bounded(i, n, how) {
        Some(j) => data[j as usize],
        None if how == "constant" => -1,
        None => i as i32 * 100,
    };
    for (arr, how) in [(&o.0, "mirror"), (&o.1, "wrap"), (&o.2, "constant"), (&o.3, "function")] {
        let want: Vec<i32> =
            (0..n).map(|i| (0..5).map(|k| (k as i32 + 1) * read(i + k - 2, how)).sum()).collect();
        assert_eq!(&arr[..], &want[..], "{how}");
    }
    let at = |r: isize, c: isize| mat[(r.clamp(0, 3) * 5 + c.clamp(0, 4)) as usize];
    let want_rect: Vec<i32> =
        (0..4).flat_map(|r| (0..5).map(move |c| at(r - 1, c - 2) + at(r, c) * 10 + at(r + 1, c + 2) * 100)).collect();
    assert_eq!(&o.4[..], &want_rect[..]);
    let want_two: Vec<i32> = (0..n)
        .map(|i| read(i - 1, "clamp") * read(i + 1, "clamp") + read(i - 1, "wrap") + data[i as usize] + read(i + 1, "wrap"))
        .collect();
    assert_eq!(&o.5[..], &want_two[..]);
}

#[test]
fn stencil_3d() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let c: Acc<DIM3, f32> = g.input();
    let s = g.stencil(W::<3>, |w: [[[Exp<f32>; 3]; 3]; 3]| w[0][1][1] + w[1][1][1] + w[2][1][2], Boundary::clamp(), c);
    let p = g.compile(s).unwrap();
    let data: Vec<f32> = (0..24).map(|x| x as f32).collect();
    let out: Array<f32> = p.run(ArrayView::from_shape(&[2, 3, 4], &data).unwrap()).unwrap();
    let at = |a: isize, b: isize, c: isize| data[(a.clamp(0, 1) * 12 + b.clamp(0, 2) * 4 + c.clamp(0, 3)) as usize];
    for a in 0..2 {
        for b in 0..3 {
            for c in 0..4 {
                let want = at(a - 1, b, c) + at(a, b, c) + at(a + 1, b, c + 1);
                assert_eq!(out[(a * 12 + b * 4 + c) as usize], want);
            }
        }
    }
}

// --- §3.7 control and §3.8 foreign functions --------------------------------------------

#[test]
fn acond_and_awhile() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, i64> = g.input();
    let flag = g.input_scalar::<bool>();
    let chosen = g.acond(flag, g.map(|x| x * 2, xs), g.map(|x| -x, xs));
    // double every element until the sum reaches 1000, counting the rounds
    let (doubled, rounds) = g.awhile(
        |(v, _): (Acc<DIM1, i64>, Acc<DIM0, i32>)| g.map(|s: Exp<i64>| s.lt(1000), g.sum(v)),
        |(v, k)| (g.map(|x| x * 2, v), g.map(|k| k + 1, k)),
        (xs, g.unit(0i32)),
    );
    let p = g.compile((chosen, doubled, rounds)).unwrap();
    let data = vec![1i64, 2, 3];
    for flag in [true, false] {
        let (c, d, r): (Array<i64>, Array<i64>, Array<i32>) = p.run((&data, flag)).unwrap();
        let want_c: Vec<i64> = data.iter().map(|&x| if flag { x * 2 } else { -x }).collect();
        assert_eq!(&c[..], &want_c[..]);
        let (mut v, mut k) = (data.clone(), 0);
        while v.iter().sum::<i64>() < 1000 {
            v.iter_mut().for_each(|x| *x *= 2);
            k += 1;
        }
        assert_eq!((&d[..], r[0]), (&v[..], k));
    }
}

#[test]
fn foreign_fallbacks_and_stdlib_linear_algebra() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let a: Acc<DIM2, f64> = g.input();
    let x: Acc<DIM1, f64> = g.input();
    let y: Acc<DIM1, f64> = g.input();
    // a foreign name nothing implements: the fallback runs
    let twice = g.foreign("test.nothing", |v: Acc<DIM1, f64>| g.map(|e| e * 2.0, v), x);
    let hyp = g.map(|e| g.foreign_exp("test.nothing_exp", |v: Exp<f64>| (v * v + 1.0).sqrt(), e), x);
    let outs = (twice, hyp, g.dot(x, y), g.gemv(a, x), g.gemm(a, g.transpose(a)));
    let p = g.compile(outs).unwrap();
    let am = vec![1.0, 2.0, 3.0, -1.0, 0.5, 4.0];
    let xv = vec![0.5, -2.0, 3.0];
    let yv = vec![4.0, 1.0, -1.0];
    type Out = (Array<f64>, Array<f64>, Array<f64>, Array<f64>, Array<f64>);
    let o: Out = p.run((ArrayView::from_shape(&[2, 3], &am).unwrap(), &xv, &yv)).unwrap();
    assert_eq!(o.0.to_vec(), xv.iter().map(|e| e * 2.0).collect::<Vec<_>>());
    assert_eq!(o.1.to_vec(), xv.iter().map(|e| (e * e + 1.0).sqrt()).collect::<Vec<_>>());
    let dot: f64 = xv.iter().zip(&yv).map(|(a, b)| a * b).sum();
    assert!((o.2[0] - dot).abs() < 1e-12);
    let m = rows(&am, 3);
    let gemv: Vec<f64> = m.iter().map(|r| r.iter().zip(&xv).map(|(a, b)| a * b).sum()).collect();
    assert_eq!(o.3.to_vec(), gemv);
    let gemm: Vec<f64> = (0..2).flat_map(|i| (0..2).map({ let m = &m; move |j| (0..3).map(|k| m[i][k] * m[j][k]).sum() })).collect();
    assert_eq!(o.4.shape(), &[2, 2]);
    for (g, w) in o.4.iter().zip(&gemm) {
        assert!((g - w).abs() < 1e-12);
    }
}

#[test]
fn fft_round_trip() {
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let z: Acc<DIM1, (f64, f64)> = g.input();
    let f = g.fft(z);
    let p = g.compile((f, g.ifft(f))).unwrap();
    let re = vec![1.0, 2.0, 0.0, -1.0, 0.5, 0.25, 3.0, -2.0];
    let im = vec![0.0, 1.0, -1.0, 0.5, 0.0, 0.0, 2.0, 1.0];
    let (f, back): (Array<(f64, f64)>, Array<(f64, f64)>) =
        p.run(ArrayView::<(f64, f64)>::new(&[8], (&re, &im)).unwrap()).unwrap();
    let n = re.len();
    for k in 0..n {
        let (mut sr, mut si) = (0.0, 0.0);
        for j in 0..n {
            let t = -2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
            sr += re[j] * t.cos() - im[j] * t.sin();
            si += re[j] * t.sin() + im[j] * t.cos();
        }
        let (gr, gi) = f.get(k);
        assert!((gr - sr).abs() < 1e-9 && (gi - si).abs() < 1e-9, "fft[{k}]");
        let (br, bi) = back.get(k);
        assert!((br - re[k]).abs() < 1e-9 && (bi - im[k]).abs() < 1e-9, "ifft(fft)[{k}]");
    }
}

#[test]
fn sharing_is_by_identity() {
    // one Exp used twice is one value: the plan has one kernel for both
    let ctx = interp();
    let g = ctx.graph().unwrap();
    let xs: Acc<DIM1, f32> = g.input();
    let shared = g.map(|x| x * 3.0, xs);
    let both = g.zip_with(|a, b| a + b, shared, shared);
    let p = g.compile(both).unwrap();
    let out: Array<f32> = p.run(&[1.0f32, 2.0][..]).unwrap();
    assert_eq!(&out[..], &[6.0, 12.0]);
    assert!(p.plan().unwrap().kernels >= 1);
}
