//! Gives the cdylib the SONAME of ROCm 7's HIP runtime, so programs linked against it record
//! the same DT_NEEDED entry as programs linked against the real libamdhip64.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libamdhip64.so.7");
}
