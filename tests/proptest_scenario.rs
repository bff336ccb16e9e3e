//! Bad scenario files: random text and mutations of the shipped scenarios (bytes replaced,
//! ranges cut or duplicated, TOML fragments and extreme numbers spliced in, truncation).
//! Parsing returns a scenario or an error that names a place in the text and says what is
//! wrong; it never panics.
use proptest::prelude::*;
use rocprofiler_sdk_sim::scenario;

const SEEDS: [&str; 7] = [
    include_str!("../scenarios/jax_matmul.toml"),
    include_str!("../scenarios/multi_thread.toml"),
    include_str!("../scenarios/two_gpu.toml"),
    include_str!("../scenarios/set_windows.toml"),
    include_str!("../scenarios/stream_lifecycle.toml"),
    include_str!("../scenarios/random_workload.toml"),
    include_str!("../scenarios/profiler_caps.toml"),
];

/// Pieces that make TOML or the scenario schema go wrong in interesting ways.
const FRAGMENTS: [&str; 32] = [
    "=",
    "[",
    "]]",
    "{",
    "}",
    "\"",
    "'''",
    ",",
    "\n",
    "#",
    "-1",
    "0",
    "4294967296",
    "18446744073709551616",
    "1e400",
    "nan",
    "\u{0}",
    "\u{feff}",
    "é",
    "[[thread]]\nsteps = [ { launch = \"nope\", stream = \"zz\" } ]\n",
    "{ repeat = 4294967295, steps = [] }",
    "grid = [0, 0, 0]",
    "[machine]\ngpus = 99\n",
    "duration_us = -5",
    "duration_us = 1e300",
    "bytes = 18446744073709551615",
    "{ set_exit = true },",
    "{ set_enter = \"compute\" },",
    "{ create_stream = \"compute\" },",
    "{ api = \"hipStreamDestroy\", stream = \"compute\" },",
    "{ random = { seed = 1, count = 100000000000, kernels = [\"k\"] } },",
    "{ repeat = 100000, steps = [ { repeat = 100000, steps = [ { sync_device = true } ] } ] },",
];

#[derive(Clone, Debug)]
enum Mutation {
    ReplaceByte { at: usize, byte: u8 },
    Cut { at: usize, len: usize },
    Duplicate { at: usize, len: usize },
    Splice { at: usize, fragment: usize },
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::ReplaceByte { at, byte }),
        (any::<usize>(), 1usize..200).prop_map(|(at, len)| Mutation::Cut { at, len }),
        (any::<usize>(), 1usize..200).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        (any::<usize>(), 0..FRAGMENTS.len())
            .prop_map(|(at, fragment)| Mutation::Splice { at, fragment }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn apply(text: &mut Vec<u8>, mutation: &Mutation) {
    let len = text.len().max(1);
    match *mutation {
        Mutation::ReplaceByte { at, byte } => {
            if !text.is_empty() {
                let at = at % text.len();
                text[at] = byte;
            }
        }
        Mutation::Cut { at, len: n } => {
            let at = at % len;
            let end = (at + n).min(text.len());
            if at < end {
                text.drain(at..end);
            }
        }
        Mutation::Duplicate { at, len: n } => {
            let at = at % len;
            let end = (at + n).min(text.len());
            if at < end {
                let copy = text[at..end].to_vec();
                text.splice(end..end, copy);
            }
        }
        Mutation::Splice { at, fragment } => {
            let at = at % (text.len() + 1);
            text.splice(at..at, FRAGMENTS[fragment].bytes());
        }
        Mutation::Truncate { at } => text.truncate(at % len),
    }
}

/// Parses `text` and checks the error contract.
fn parse_checked(text: &str) {
    match scenario::parse_str(text, "fuzzed.toml") {
        Ok(_) => {}
        Err(error) => {
            assert!(
                !error.message.trim().is_empty(),
                "an error says what is wrong"
            );
            let lines = text.lines().count().max(1);
            assert!(
                error.line <= lines + 1,
                "error line {} past the end ({lines} lines): {error}",
                error.line
            );
            let shown = error.to_string();
            assert!(shown.starts_with("fuzzed.toml"), "{shown}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(debug_assertions) { 256 } else { 2048 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_scenarios_parse_or_fail_with_a_located_error(
        seed in 0..SEEDS.len(),
        mutations in proptest::collection::vec(mutation(), 1..8),
    ) {
        let mut text = SEEDS[seed].as_bytes().to_vec();
        for mutation in &mutations {
            apply(&mut text, mutation);
        }
        parse_checked(&String::from_utf8_lossy(&text));
    }

    #[test]
    fn random_text_parses_or_fails_with_a_located_error(text in "\\PC{0,400}") {
        parse_checked(&text);
    }

    #[test]
    fn random_toml_shaped_text_parses_or_fails_with_a_located_error(
        text in "(\\[\\[?[a-z_.]{0,12}\\]\\]?\n|[a-z_]{1,10} = (-?[0-9]{1,22}|\"[a-z0-9_]{0,8}\"|\\[[0-9, ]{0,12}\\]|\\{[a-z =0-9\",]{0,30}\\})\n){0,20}"
    ) {
        parse_checked(&text);
    }
}

#[test]
fn the_shipped_scenarios_parse() {
    for text in SEEDS {
        scenario::parse_str(text, "shipped.toml").expect("a shipped scenario parses");
    }
}
