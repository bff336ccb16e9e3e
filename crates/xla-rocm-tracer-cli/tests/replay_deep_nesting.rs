//! `replay` of a scenario nesting `steps` groups past the limit exits with the limit named,
//! not a stack overflow, with the main thread's stack limited as `ulimit -s` limits it (the
//! scenario is parsed on the main thread, whose stack is what the limit says).
use std::path::Path;
use std::process::Command;

/// `ulimit -s` for the CLI, in KiB: a third more than parsing the deepest accepted scenario
/// needs. Before the depth was counted while reading, the text below overflowed it.
const STACK_KIB: u32 = if cfg!(debug_assertions) { 1024 } else { 512 };

/// `headers` groups as `[[thread.steps...]]` headers, then `inline` more written inline in
/// the innermost one's step list.
fn nested(headers: usize, inline: usize) -> String {
    let mut text = String::from("[[thread]]\n");
    let mut path = String::from("thread");
    for _ in 0..=headers {
        path.push_str(".steps");
        text.push_str(&format!("[[{path}]]\n"));
    }
    let mut steps = "{ sync_device = true }".to_owned();
    for _ in 0..inline {
        steps = format!("{{ steps = [ {steps} ] }}");
    }
    text + &format!("steps = [ {steps} ]\n")
}

#[test]
fn deeply_nested_groups_are_refused_naming_the_limit() {
    // Past the group limit as headers alone; then as deep as the TOML parser goes, headers and
    // inline groups together (some 120 groups).
    for (headers, inline) in [(36, 0), (78, 39)] {
        let dir = std::env::temp_dir();
        let name = format!("deep-{headers}-{inline}-{}", std::process::id());
        let path = dir.join(format!("{name}.toml"));
        let output = dir.join(format!("{name}.xplane.pb"));
        std::fs::write(&path, nested(headers, inline)).unwrap();
        let result = Command::new("sh")
            .args(["-c", &format!("ulimit -s {STACK_KIB} && exec \"$@\""), "sh"])
            .arg(env!("CARGO_BIN_EXE_xla-rocm-tracer"))
            .args(["replay", path.to_str().unwrap(), "-o"])
            .arg(&output)
            .output()
            .unwrap();
        std::fs::remove_file(&path).ok();
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(
            result.status.code(),
            Some(1),
            "{headers}+{inline}: {stderr}"
        );
        assert!(
            stderr.contains(Path::new(&path).to_str().unwrap())
                && stderr.contains("`steps` groups nest at most 32 deep"),
            "{headers}+{inline}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!output.exists(), "{headers}+{inline}: a trace was written");
    }
}
