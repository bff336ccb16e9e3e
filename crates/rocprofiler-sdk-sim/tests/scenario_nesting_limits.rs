//! Deeply nested scenario text is refused with an error naming the limit, never a stack
//! overflow: `[[thread.steps.steps...]]` headers, inline `steps = [{ steps = [...] }]`, both
//! mixed (the header path and the inline nesting are limited separately by the TOML parser,
//! so together they reach some 120 groups), and brackets with nothing to do with steps.
//!
//! Each case parses on a thread with a small stack: the caller of `rocsim_replay_scenario`
//! may be any thread of the profiled program, and a limit that holds only on a big stack
//! would still crash it.
use rocprofiler_sdk_sim::scenario::{self, ScenarioError};

/// The stack of the thread that parses: a third more than the deepest accepted scenario
/// needs (some 750 KiB in a debug build, 250 KiB in a release one). Before the depth was
/// counted while reading, the deepest text the TOML parser takes (some 120 groups) needed
/// 3.4 MiB and 1.1 MiB.
const SMALL_STACK: usize = if cfg!(debug_assertions) {
    1 << 20
} else {
    384 << 10
};

/// Parses `text` on a thread with [`SMALL_STACK`] (a stack overflow aborts the test binary).
fn parse_on_small_stack(text: String) -> Result<(), ScenarioError> {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || scenario::parse_str(&text, "deep.toml").map(drop))
        .unwrap()
        .join()
        .expect("parsing must not panic")
}

#[track_caller]
fn assert_refused(text: String, needle: &str) {
    let shown = parse_on_small_stack(text)
        .expect_err("must be refused")
        .to_string();
    assert!(shown.starts_with("deep.toml:"), "{shown}");
    assert!(
        shown.contains(needle),
        "`{shown}` should mention `{needle}`"
    );
}

const LIMIT: &str = "`steps` groups nest at most 32 deep";

/// `groups` nested groups as headers: `[[thread.steps]]` is the thread's step list, each
/// further `.steps` one group deeper; the innermost step syncs the device.
fn header_form(groups: usize) -> String {
    let mut text = String::from("[[thread]]\n");
    let mut path = String::from("thread");
    for _ in 0..=groups {
        path.push_str(".steps");
        text.push_str(&format!("[[{path}]]\n"));
    }
    text.push_str("sync_device = true\n");
    text
}

/// `groups` nested groups written inline, in the thread's step list.
fn inline_steps(groups: usize) -> String {
    let mut steps = "{ sync_device = true }".to_owned();
    for _ in 0..groups {
        steps = format!("{{ steps = [ {steps} ] }}");
    }
    steps
}

#[test]
fn header_form_nesting_parses_up_to_the_limit() {
    parse_on_small_stack(header_form(32)).unwrap();
    assert_refused(header_form(33), LIMIT);
}

#[test]
fn deep_header_form_nesting_is_refused() {
    for groups in [34, 38, 39, 40, 60, 77, 78, 79, 100, 200, 500] {
        assert_refused(header_form(groups), LIMIT);
    }
}

#[test]
fn inline_nesting_parses_up_to_the_limit() {
    parse_on_small_stack(format!("[[thread]]\nsteps = [ {} ]\n", inline_steps(32))).unwrap();
    for groups in [33, 39, 40, 41, 200, 10_000] {
        assert_refused(
            format!("[[thread]]\nsteps = [ {} ]\n", inline_steps(groups)),
            LIMIT,
        );
    }
}

/// The deepest header path the TOML parser takes, with the deepest inline nesting it takes
/// inside its last step: the most `RawStep`s one file can nest.
#[test]
fn header_and_inline_nesting_together_are_refused() {
    for (headers, inline) in [(20, 20), (31, 1), (30, 38), (77, 38), (78, 39)] {
        let mut text = header_form(headers);
        text.push_str(&format!("steps = [ {} ]\n", inline_steps(inline)));
        // The innermost header step has `sync_device` and `steps`: refused one way or the
        // other, never by a crash.
        let shown = parse_on_small_stack(text.replace("sync_device = true\n", ""))
            .expect_err("must be refused")
            .to_string();
        assert!(shown.contains(LIMIT), "{headers}+{inline}: {shown}");
    }
}

/// Brackets and braces nested far past anything a scenario needs, where no step is: the
/// TOML parser's own limit answers, with the scenario's limit named beside it.
#[test]
fn pathological_bracket_nesting_is_refused() {
    for depth in [100, 100_000] {
        let arrays = format!("x = {}{}\n", "[".repeat(depth), "]".repeat(depth));
        let tables = format!("x = {}{}\n", "{ a = ".repeat(depth), "}".repeat(depth));
        let unclosed = format!("x = {}\n", "[{ a = ".repeat(depth));
        for text in [arrays, tables, unclosed] {
            for at in ["", "[machine]\n", "[[thread]]\n"] {
                assert_refused(format!("{at}{text}"), "nest at most");
            }
        }
        let headers = format!("[{}]\n", vec!["a"; depth].join("."));
        assert_refused(headers, "nest at most");
    }
}

/// The count of groups being read is per thread and given back on an error: after refusals,
/// the deepest accepted scenario still parses on the same thread.
#[test]
fn a_refusal_leaves_the_thread_able_to_parse_the_deepest_scenario() {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(|| {
            for _ in 0..3 {
                scenario::parse_str(&header_form(33), "deep.toml").unwrap_err();
                let inline = format!("[[thread]]\nsteps = [ {} ]\n", inline_steps(35));
                scenario::parse_str(&inline, "deep.toml").unwrap_err();
            }
            scenario::parse_str(&header_form(32), "ok.toml").unwrap();
            let inline = format!("[[thread]]\nsteps = [ {} ]\n", inline_steps(32));
            scenario::parse_str(&inline, "ok.toml").unwrap();
        })
        .unwrap()
        .join()
        .expect("parsing must not panic");
}
