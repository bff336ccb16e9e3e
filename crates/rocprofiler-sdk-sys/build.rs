//! Links the real `librocprofiler-sdk.so` when one is named; otherwise links nothing, and the
//! final link takes the symbols from the workspace's simulated library.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=ROCPROFILER_SDK_LIB_DIR");
    println!("cargo:rerun-if-env-changed=ROCM_PATH");
    let lib_dir = std::env::var_os("ROCPROFILER_SDK_LIB_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("ROCM_PATH").map(|root| PathBuf::from(root).join("lib")));
    if let Some(dir) = lib_dir {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=dylib=rocprofiler-sdk");
        println!("cargo:lib_dir={}", dir.display());
    }
}
