//! Links the real `librocprofiler-sdk.so` when one is named; otherwise links nothing, and the
//! final link takes the symbols from the workspace's simulated library.
//!
//! `ROCPROFILER_SDK_LIB_DIR` names the SDK's folder on purpose: a folder without the library
//! is an error. `ROCM_PATH` is set on most ROCm machines for other reasons (often to a ROCm
//! without the SDK, or a partial install): `$ROCM_PATH/lib` is linked only when it holds
//! `librocprofiler-sdk.so`, and otherwise the build says so and goes on with the simulator.
use std::path::{Path, PathBuf};

const LIBRARY: &str = "librocprofiler-sdk.so";

fn main() {
    println!("cargo:rerun-if-env-changed=ROCPROFILER_SDK_LIB_DIR");
    println!("cargo:rerun-if-env-changed=ROCM_PATH");
    let lib_dir = if let Some(dir) = std::env::var_os("ROCPROFILER_SDK_LIB_DIR") {
        let dir = PathBuf::from(dir);
        if !dir.join(LIBRARY).is_file() {
            panic!(
                "ROCPROFILER_SDK_LIB_DIR={} has no {LIBRARY}; unset it to build with the \
                 simulated SDK",
                dir.display()
            );
        }
        Some(dir)
    } else if let Some(root) = std::env::var_os("ROCM_PATH") {
        let dir = Path::new(&root).join("lib");
        if dir.join(LIBRARY).is_file() {
            Some(dir)
        } else {
            println!(
                "cargo:warning=ROCM_PATH={} has no lib/{LIBRARY}: building with the simulated \
                 SDK (set ROCPROFILER_SDK_LIB_DIR to name the SDK's folder)",
                Path::new(&root).display()
            );
            None
        }
    } else {
        None
    };
    if let Some(dir) = lib_dir {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=dylib=rocprofiler-sdk");
        println!("cargo:lib_dir={}", dir.display());
    }
}
