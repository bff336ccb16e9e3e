//! The cdylib exports every SDK function the bindings declare (`nm -D`), and carries the
//! SONAME of the real ROCm 7.x library.
use sim_test_kit::child;
use std::path::PathBuf;
use std::process::Command;

/// The cdylib as this `cargo test` built it. Cargo builds the library with all its crate
/// types into `target/<profile>/deps/` for the tests, but copies the `.so` up to
/// `target/<profile>/` only on `cargo build`: a plain `cargo test` on a fresh clone has it in
/// `deps/` alone, beside this test's executable.
fn cdylib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [deps, deps.parent().unwrap()]
        .iter()
        .map(|dir| dir.join("librocprofiler_sdk_sim.so"))
        .find(|path| path.is_file())
        .unwrap_or_else(|| {
            panic!(
                "librocprofiler_sdk_sim.so is neither in {} nor beside it; \
                 `cargo build -p rocprofiler-sdk-sim` makes it",
                deps.display()
            )
        })
}

fn declared_functions() -> Vec<String> {
    let sys = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rocprofiler-sdk-sys/src/lib.rs");
    let text = std::fs::read_to_string(sys).unwrap();
    let block = &text[text.find("extern \"C\" {").expect("extern block")..];
    let block = &block[..block.find("\n}").unwrap()];
    block
        .split("pub fn ")
        .skip(1)
        .map(|s| s[..s.find('(').unwrap()].trim().to_owned())
        .collect()
}

#[test]
fn nm_lists_every_declared_sdk_function() {
    let lib = cdylib();
    let output = match child::output(
        "nm_lists_every_declared_sdk_function",
        Command::new("nm").arg("-D").arg("--defined-only").arg(&lib),
    ) {
        Ok(o) => o,
        Err(_) => {
            eprintln!("skipping: `nm` is not installed");
            return;
        }
    };
    assert!(
        output.status.success(),
        "nm failed on {}: {}",
        lib.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let symbols = String::from_utf8_lossy(&output.stdout);
    let exported: Vec<&str> = symbols
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace().rev();
            let name = parts.next()?;
            let kind = parts.next()?;
            (kind == "T").then_some(name)
        })
        .collect();
    let declared = declared_functions();
    assert!(declared.len() >= 30, "{declared:?}");
    let missing: Vec<_> = declared
        .iter()
        .filter(|f| !exported.contains(&f.as_str()))
        .collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
    for driver in [
        "rocsim_launch_kernel",
        "rocsim_memcpy",
        "rocsim_replay_scenario",
    ] {
        assert!(exported.contains(&driver), "{driver}");
    }
}

#[test]
fn soname_is_the_rocm_7_one() {
    let Ok(output) = child::output(
        "soname_is_the_rocm_7_one",
        Command::new("readelf").arg("-d").arg(cdylib()),
    ) else {
        eprintln!("skipping: `readelf` is not installed");
        return;
    };
    assert!(String::from_utf8_lossy(&output.stdout).contains("[librocprofiler-sdk.so.1]"));
}
