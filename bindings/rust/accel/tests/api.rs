//! The safe layer itself: errors as `Result`s with accel's messages, drop
//! order (programs and arrays outliving their context), and one program
//! run from several threads at once.
mod common;

use std::sync::Arc;
use std::thread;

use accel::{Acc, Array, ArrayView, Backend, Category, Context, Error, DIM1};
use common::{contexts, interp};

const SCALE: &str = "scale (k : f32) (xs : Vector f32) : Vector f32 = map (* k) xs";
const FOLD1: &str = "largest (xs : Vector i64) : Scalar i64 = fold1 max xs";

#[test]
fn parse_errors_name_the_place() {
    let ctx = interp();
    let err = ctx.compile_text("f (xs : Vector f32) : Vector f32 = map (+ 1 xs", None).unwrap_err();
    assert!(matches!(err, Error::Parse(_)), "{err:?}");
    assert_eq!((err.status(), err.category()), (600, Category::Text));
    let line_col: Vec<&str> = err.message().splitn(3, ':').collect();
    assert!(line_col.len() == 3 && line_col[0] == "1" && line_col[1].parse::<u32>().is_ok(), "{err}");
    // Display is accel's message; std::error::Error lets `?` box it
    assert!(err.to_string().contains(err.message()));
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err.clone());
    assert_eq!(boxed.to_string(), err.to_string());
}

#[test]
fn missing_entry_and_type_errors() {
    let ctx = interp();
    let err = ctx.compile_text(SCALE, Some("nope")).unwrap_err();
    assert_eq!(err.category(), Category::Availability, "{err:?}");
    assert!(err.message().contains("nope"), "{err}");
    let err = ctx.compile_text("f (xs : Vector f32) : Vector i32 = map (* 2) xs", None).unwrap_err();
    assert!(matches!(err, Error::Type(_) | Error::Parse(_)), "{err:?}");
}

#[test]
fn run_errors_leave_the_program_usable() {
    let ctx = interp();
    let p = ctx.compile_text(SCALE, None).unwrap();
    let xs = [1.0f32, 2.0, 3.0];

    // wrong number of inputs, caught before accel is called
    let err = p.run::<_, Array<f32>>(&xs[..]).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert!(err.message().contains("input"), "{err}");

    // wrong element type of an input
    let ints = [1i32, 2, 3];
    let err = p.run::<_, Array<f32>>((2.0f32, &ints[..])).unwrap_err();
    assert!(matches!(err, Error::Type(_)), "{err:?}");

    // wrong rank of an input
    let m = ArrayView::from_shape(&[1, 3], &xs[..]).unwrap();
    let err = p.run::<_, Array<f32>>((2.0f32, m)).unwrap_err();
    assert!(matches!(err, Error::Shape(_)), "{err:?}");

    // wrong element type asked of the output
    let err = p.run::<_, Array<i32>>((2.0f32, &xs[..])).unwrap_err();
    assert!(matches!(err, Error::Type(_)), "{err:?}");

    // a destination of the wrong length
    let mut short = [0.0f32; 2];
    let err = p.run_into((2.0f32, &xs[..]), &mut short[..]).unwrap_err();
    assert!(matches!(err, Error::Shape(_)), "{err:?}");
    assert_eq!(short, [0.0, 0.0]);

    // a shape that does not match its data is refused before any run
    assert!(matches!(ArrayView::from_shape(&[2, 2], &xs[..]), Err(Error::Shape(_))));

    // and the program still runs
    let out: Array<f32> = p.run((2.0f32, &xs[..])).unwrap();
    assert_eq!(&out[..], &[2.0, 4.0, 6.0]);
    let mut dst = [0.0f32; 3];
    p.run_into((0.5f32, &xs[..]), &mut dst[..]).unwrap();
    assert_eq!(dst, [0.5, 1.0, 1.5]);
}

#[test]
fn runtime_errors_are_runtime() {
    for ctx in contexts() {
        let p = ctx.compile_text(FOLD1, None).unwrap();
        let empty: [i64; 0] = [];
        let err = p.run::<_, Array<i64>>(&empty[..]).unwrap_err();
        assert_eq!(err.category(), Category::Run, "{:?}: {err:?}", ctx.backend());
        assert!(!err.message().is_empty());
        let out: Array<i64> = p.run(&[3i64, 9, -2][..]).unwrap();
        assert_eq!(out[0], 9);
    }
}

#[test]
fn unknown_statuses_are_kept() {
    let e = Error::from_status(4242, "from a newer library");
    assert_eq!((e.status(), e.category(), e.message()), (4242, Category::Unknown, "from a newer library"));
    let e = Error::from_status(accel::sys::ACC_ERR_TIMEOUT, "late");
    assert!(matches!(e, Error::Timeout(_)));
    assert_eq!(e.category(), Category::Run);
}

#[test]
fn programs_and_arrays_outlive_their_context() {
    let xs = vec![1.0f32, 2.0, 3.0, 4.0];
    let (text, built, backend) = {
        let ctx = Context::with_backend(Backend::Cpu).unwrap_or_else(|_| interp());
        let text = ctx.compile_text(SCALE, None).unwrap();
        let g = ctx.graph().unwrap();
        let v: Acc<DIM1, f32> = g.input();
        let built = g.compile(g.map(|x| x + 1.0, v)).unwrap();
        let backend = ctx.backend();
        drop(g);
        (text, built, backend) // the context is dropped here, before its programs
    };
    let a: Array<f32> = text.run((3.0f32, &xs)).unwrap();
    let b: Array<f32> = built.run(&xs).unwrap();
    assert_eq!(text.backend(), backend);
    // outputs outlive the programs too
    drop(text);
    drop(built);
    assert_eq!(a.to_vec(), xs.iter().map(|x| x * 3.0).collect::<Vec<_>>());
    assert_eq!(b.to_vec(), xs.iter().map(|x| x + 1.0).collect::<Vec<_>>());
}

#[test]
fn one_program_on_several_threads() {
    for ctx in contexts() {
        let p = Arc::new(ctx.compile_text(SCALE, None).unwrap());
        let bad = Arc::new(ctx.compile_text(FOLD1, None).unwrap());
        drop(ctx); // the threads keep the programs, and so the context
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let (p, bad) = (Arc::clone(&p), Arc::clone(&bad));
                thread::spawn(move || {
                    for round in 0..25 {
                        let n = 100 + 37 * t + round;
                        let k = (t + 1) as f32;
                        let xs: Vec<f32> = (0..n).map(|i| (i * (round + 1)) as f32).collect();
                        let out: Array<f32> = p.run((k, &xs)).unwrap();
                        let want: Vec<f32> = xs.iter().map(|x| x * k).collect();
                        assert_eq!(&out[..], &want[..], "thread {t} round {round}");
                        if round % 5 == t % 5 {
                            // a failing run on this thread does not disturb the others
                            let err = bad.run::<_, Array<i64>>(&[] as &[i64]).unwrap_err();
                            assert_eq!(err.category(), Category::Run);
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().expect("a worker failed");
        }
    }
}

#[test]
fn scoped_threads_borrow_inputs() {
    // Program is Sync: threads share it by reference and read borrowed
    // slices; the outputs are Send and come back to this thread.
    let ctx = interp();
    let p = ctx.compile_text(SCALE, None).unwrap();
    let data: Vec<Vec<f32>> = (0..3).map(|t| (0..50).map(|i| (i + t) as f32).collect()).collect();
    let outs: Vec<Array<f32>> = thread::scope(|s| {
        let p = &p;
        let hs: Vec<_> = data.iter().map(|xs| s.spawn(move || p.run((2.0f32, xs)).unwrap())).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (xs, out) in data.iter().zip(&outs) {
        assert_eq!(out.to_vec(), xs.iter().map(|x| x * 2.0).collect::<Vec<_>>());
    }
}
