//! Lets this crate's own tests and examples find libaccel at run time
//! (an rpath to the folder accel-sys linked, `DEP_ACCEL_LIB_DIR`).  Crates
//! that depend on `accel` are not affected: they choose their own rpath.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_ACCEL_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_ACCEL_LIB_DIR") {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{dir}");
        println!("cargo:rustc-link-arg-examples=-Wl,-rpath,{dir}");
    }
}
