//! Execution handles: deadlines (the handle's and the context's),
//! cancellation from another thread, and the program's introspection
//! (signature JSON, entries, explain, plan).
mod common;

use std::thread;
use std::time::{Duration, Instant};

use accel::{Array, Backend, Category, Context, ContextOptions, Error, Exec, ExecOptions};
use common::contexts;

/// A scalar loop of n steps: long enough for any deadline when n is large,
/// instant when it is small (the interpreter and CPU kernels check for a
/// stop inside a `while`).
const SPIN: &str = "spin (n : i64) : Scalar i64 = unit (while (\\i -> i < n) (\\i -> i + 1) 0)";
const FOREVER: i64 = 1 << 60;

#[test]
fn a_deadline_stops_the_run_and_the_handle_stays_usable() {
    for ctx in contexts() {
        let p = ctx.compile_text(SPIN, None).unwrap();
        let mut exec = Exec::with_options(&ctx, &ExecOptions::new().deadline(Duration::from_millis(50))).unwrap();
        let start = Instant::now();
        let err = exec.run::<_, Array<i64>>(&p, FOREVER).unwrap_err();
        assert!(matches!(err, Error::Timeout(_)), "{:?}: {err:?}", ctx.backend());
        assert!(start.elapsed() < Duration::from_secs(20), "stopped late: {:?}", start.elapsed());
        assert!(err.message().contains("deadline"), "{err}");
        let out: Array<i64> = exec.run(&p, 1000i64).unwrap();
        assert_eq!(out[0], 1000);
    }
}

#[test]
fn the_context_deadline_applies_to_plain_runs() {
    let opts = ContextOptions::new().backend(Backend::Interp).run_deadline(Duration::from_millis(30));
    let ctx = Context::with_options(&opts).unwrap();
    let p = ctx.compile_text(SPIN, None).unwrap();
    let err = p.run::<_, Array<i64>>(FOREVER).unwrap_err();
    assert_eq!((err.category(), err.status()), (Category::Run, accel::sys::ACC_ERR_TIMEOUT));
    // a handle may lift it
    let mut exec = Exec::with_options(&ctx, &ExecOptions::new().no_deadline()).unwrap();
    let out: Array<i64> = exec.run(&p, 5000i64).unwrap();
    assert_eq!(out[0], 5000);
}

#[test]
fn a_canceller_stops_a_run_from_another_thread() {
    for ctx in contexts() {
        let p = ctx.compile_text(SPIN, None).unwrap();
        // the safety net: a broken cancel fails as a timeout, not a hang
        let mut exec = Exec::with_options(&ctx, &ExecOptions::new().deadline(Duration::from_secs(30))).unwrap();
        let c = exec.canceller();
        let canceller = thread::spawn(move || {
            thread::sleep(Duration::from_millis(30));
            c.cancel().unwrap();
        });
        let err = exec.run::<_, Array<i64>>(&p, FOREVER).unwrap_err();
        canceller.join().unwrap();
        assert!(matches!(err, Error::Cancelled(_)), "{:?}: {err:?}", ctx.backend());
        // the flag does not carry over to the next run
        let out: Array<i64> = exec.run(&p, 10i64).unwrap();
        assert_eq!(out[0], 10);
    }
}

#[test]
fn a_program_of_another_context_is_refused() {
    let (a, b) = (common::interp(), common::interp());
    let p = a.compile_text(SPIN, None).unwrap();
    let mut exec = Exec::new(&b).unwrap();
    let err = exec.run::<_, Array<i64>>(&p, 1i64).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
}

#[test]
fn signatures_entries_and_plans() {
    let src = "scale (k : f32) (xs : Matrix f32) : Matrix f32 = map (* k) xs\n\
               pairs (xs : Vector (i32, f64)) : Vector f64 = map (\\(a, b) -> f64 a + b) xs";
    assert_eq!(accel::entry_points(src).unwrap(), vec!["scale", "pairs"]);
    let json = accel::entries_json(src).unwrap();
    assert!(json.contains("\"scale\"") && json.contains("\"pairs\""), "{json}");
    let ctx = common::interp();
    let p = ctx.compile_text(src, Some("pairs")).unwrap();
    assert_eq!((p.num_inputs(), p.num_outputs()), (1, 1));
    let sig = p.signature_json().unwrap();
    assert!(sig.contains("i32") && sig.contains("f64"), "{sig}");
    let ins = p.inputs();
    assert_eq!(ins.len(), 1);
    let text = p.explain().unwrap();
    assert!(!text.is_empty());
    assert!(p.plan().unwrap().kernels >= 1);
    let err = accel::entry_points("scale (k : f32 = ").unwrap_err();
    assert!(matches!(err, Error::Parse(_)), "{err:?}");
    assert!(!accel::version().is_empty());
    assert_eq!(accel::abi_version(), accel::sys::ACC_ABI_VERSION);
}

#[test]
fn every_backend_reports_itself() {
    for ctx in contexts() {
        let (ok, why) = ctx.backend_available(ctx.backend());
        assert!(ok, "{why}");
        let (_, why_cuda) = ctx.backend_available(Backend::Cuda);
        assert!(!why_cuda.is_empty() || ctx.backend_available(Backend::Cuda).0);
        let p = ctx.compile_text(SPIN, None).unwrap();
        assert_eq!(p.backend(), ctx.backend());
    }
}
