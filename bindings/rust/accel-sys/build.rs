//! Finds libaccel for the linker: the folder in `ACCEL_LIB_DIR` (a build
//! tree, `build/`), else the installed library through `pkg-config accel`
//! (which honours `PKG_CONFIG_PATH`).  The folder is passed on to crates
//! that depend on this one as `DEP_ACCEL_LIB_DIR`.
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=ACCEL_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(dir) = env::var_os("ACCEL_LIB_DIR").filter(|d| !d.is_empty()) {
        let dir = dir.to_string_lossy().into_owned();
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-lib=dylib=accel");
        println!("cargo:lib_dir={dir}");
        return;
    }
    match pkg_config_libs() {
        Ok(flags) => link_flags(&flags),
        Err(why) => panic!(
            "accel-sys: cannot find libaccel: set ACCEL_LIB_DIR to the folder that \
             holds libaccel.so (a build tree: build/), or install accel so that \
             `pkg-config --libs accel` finds it ({why})"
        ),
    }
}

fn pkg_config_libs() -> Result<String, String> {
    let out = Command::new("pkg-config")
        .args(["--libs", "accel"])
        .output()
        .map_err(|e| format!("pkg-config could not be run: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn link_flags(flags: &str) {
    let mut lib_dir = None;
    for flag in flags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
            lib_dir.get_or_insert(dir.to_string());
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    }
    if let Some(dir) = lib_dir {
        println!("cargo:lib_dir={dir}");
    }
}
