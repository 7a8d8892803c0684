//! The committed bindings are exactly what bindgen makes of accel.h now.
//!
//! Runs `regen.sh --stdout` (the `bindgen` command and libclang) and
//! compares its output with `src/bindings.rs`, ignoring whitespace (so a
//! different rustfmt does not matter).  A difference means accel.h changed:
//! run `./regen.sh` and commit `src/bindings.rs`.
use std::path::Path;
use std::process::Command;

fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn bindings_match_the_header() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("sh")
        .arg(dir.join("regen.sh"))
        .arg("--stdout")
        .output()
        .expect("sh runs regen.sh");
    assert!(
        out.status.success(),
        "regen.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = String::from_utf8(out.stdout).expect("bindgen writes UTF-8");
    let committed =
        std::fs::read_to_string(dir.join("src/bindings.rs")).expect("src/bindings.rs exists");
    assert!(
        squeeze(&fresh) == squeeze(&committed),
        "src/bindings.rs is out of date with accel.h: run bindings/rust/accel-sys/regen.sh"
    );
}

/// Every function the header declares is in the bindings (bindgen's
/// allowlist would silently drop one whose name lost its acc_ prefix).
#[test]
fn every_declared_function_is_bound() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let inc = std::env::var("ACCEL_INCLUDE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| dir.join("../../../abi/include"));
    let header = std::fs::read_to_string(inc.join("accel.h")).expect("accel.h is readable");
    let bound = std::fs::read_to_string(dir.join("src/bindings.rs")).unwrap();
    let mut count = 0;
    for decl in header.split("ACC_API ").skip(1) {
        let name = decl
            .split('(')
            .next()
            .and_then(|head| head.split(|c: char| !c.is_alphanumeric() && c != '_').rfind(|w| !w.is_empty()))
            .expect("a declaration has a name");
        if !name.starts_with("acc_") {
            continue; // the ACC_API macro's own definition
        }
        assert!(bound.contains(&format!("pub fn {name}(")), "{name} is not bound");
        count += 1;
    }
    assert!(count > 100, "only {count} declarations found in accel.h");
}
