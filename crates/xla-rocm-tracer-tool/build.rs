//! Records `librocprofiler-sdk.so.1` as a DT_NEEDED entry of the tool library, whichever SDK
//! it was built against: loaded into a process whose SDK came in with another library's
//! local scope (a PJRT plugin dlopened by Python), the tool still resolves the SDK's
//! functions through its own dependency (docs/tool-library.md). Without a real SDK to link,
//! an empty stand-in with that SONAME is linked; at run time the process's SDK is used.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let stub = out.join("librocprofiler-sdk.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let status = Command::new(&cc)
        .args([
            "-shared",
            "-x",
            "c",
            "/dev/null",
            "-Wl,-soname,librocprofiler-sdk.so.1",
            "-o",
        ])
        .arg(&stub)
        .status()
        .unwrap_or_else(|error| panic!("cannot run {cc} to make the SDK stand-in: {error}"));
    assert!(status.success(), "{cc} failed to make {}", stub.display());
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,--no-as-needed");
    println!("cargo:rustc-cdylib-link-arg=-lrocprofiler-sdk");
}
