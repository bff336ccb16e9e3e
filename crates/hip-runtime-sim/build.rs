//! Gives the cdylib the SONAME of ROCm 7's HIP runtime, so programs linked against it record
//! the same DT_NEEDED entry as programs linked against the real libamdhip64.
//!
//! It also records DT_NEEDED `librocprofiler-sdk.so.1`: the cdylib calls the simulated SDK's
//! `rocsim_*` driver functions, and a program that loads libamdhip64 alone (a Python extension
//! dlopened with RTLD_NOW, as JAX's `rocm_plugin_extension` is) must get them resolved. The
//! entry names the SONAME only, so the process still holds one SDK: whichever
//! `librocprofiler-sdk.so.1` the loader finds (the simulated one, under the real name). The
//! link uses an empty stand-in with that SONAME, built here with the C compiler.
use std::path::PathBuf;
use std::process::Command;

const SDK_SONAME: &str = "librocprofiler-sdk.so.1";

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libamdhip64.so.7");
    println!("cargo:rerun-if-changed=build.rs");
    let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    let dir = out_dir.join("sdk-link-stand-in");
    let source = dir.join("empty.c");
    let library = dir.join(SDK_SONAME);
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let built = std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(&source, "/* only a SONAME to link against */\n").is_ok()
        && Command::new(&compiler)
            .args(["-shared", "-fPIC", "-nostdlib"])
            .arg(format!("-Wl,-soname,{SDK_SONAME}"))
            .arg("-o")
            .arg(&library)
            .arg(&source)
            .status()
            .is_ok_and(|s| s.success());
    if !built {
        println!(
            "cargo:warning=no C compiler ({compiler}): libamdhip64.so will not record \
             DT_NEEDED {SDK_SONAME}; programs must load the simulated SDK themselves"
        );
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,--no-as-needed");
    println!("cargo:rustc-cdylib-link-arg=-L{}", dir.display());
    println!("cargo:rustc-cdylib-link-arg=-l:{SDK_SONAME}");
}
