//! Gives the cdylib the SONAME of the real library (docs/sdk-facts.md#library: `.so.1` for ROCm 7.x),
//! and lets the discovery test export `rocprofiler_configure` from its executable.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librocprofiler-sdk.so.1");
    println!("cargo:rustc-link-arg-tests=-Wl,--export-dynamic-symbol=rocprofiler_configure");
    println!("cargo:rerun-if-changed=build.rs");
}
