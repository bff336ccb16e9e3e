//! Gives the cdylib the SONAME of the real ROCTx library of ROCm 7 (its SOVERSION is the SDK's
//! major version, 1), and lets the tests' executable, which links the simulated SDK, offer the
//! SDK's `rocsim_roctx_*` entry points to the library it loads (docs/simulator-fidelity.md).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librocprofiler-sdk-roctx.so.1");
    for symbol in [
        "rocsim_roctx_range_push_a",
        "rocsim_roctx_range_pop",
        "rocsim_roctx_range_start_a",
        "rocsim_roctx_range_stop",
        "rocsim_roctx_mark_a",
        "rocsim_roctx_name_hip_stream",
    ] {
        println!("cargo:rustc-link-arg-tests=-Wl,--export-dynamic-symbol={symbol}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
