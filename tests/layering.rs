//! The layering rules of docs/ARCHITECTURE.md, checked on the source: every `crate::X` path
//! (also inside `use crate::{...}` groups) and every `super::` path that climbs out of a
//! top-level module in `src/**/*.rs` must name a module the table below allows; and no import
//! circle among the files (child modules) themselves. Comments and string literals are
//! ignored, so prose may name any module.
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The top-level modules `lib.rs` declares, with the ones each may use besides itself.
const RULES: &[(&str, &[&str])] = &[
    ("event", &["drop_reason", "gpu_agent", "sink"]),
    ("drop_reason", &["event", "gpu_agent", "sink"]),
    ("gpu_agent", &["drop_reason", "event", "sink"]),
    ("sink", &["drop_reason", "event", "gpu_agent"]),
    ("tracer", &["drop_reason", "event", "gpu_agent", "sink"]),
    ("collector", &["drop_reason", "event", "gpu_agent", "sink"]),
    (
        "export",
        &["collector", "drop_reason", "event", "gpu_agent", "sink"],
    ),
    (
        "ffi",
        &[
            "drop_reason",
            "event",
            "gpu_agent",
            "sink",
            "tracer",
            "collector",
            "export",
        ],
    ),
];

/// The only top-level modules that may name SDK types: the collector and the export work on
/// plain data whatever SDK produced it.
const SDK_SYS_USERS: &[&str] = &["tracer", "gpu_agent", "ffi"];

/// Simulator crates: the product links them only in its own unit tests.
const TEST_ONLY_CRATES: &[&str] = &["rocprofiler_sdk_sim", "hip_runtime_sim", "sim_test_kit"];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file relative to `src/`: `tracer/mod.rs` -> [tracer],
/// `tracer/agents.rs` -> [tracer, agents], `lib.rs` -> [].
fn module_path(rel: &str) -> Vec<String> {
    let rel = rel.strip_suffix(".rs").expect(".rs file");
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The source with comments, string literals and char literals replaced by spaces (newlines
/// kept, so byte offsets and line numbers stay those of the file).
fn code_only(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (b[i] == b'r' || b[i..].starts_with(b"br")) && (i == 0 || !ident(b[i - 1])) && {
            let k = i + if b[i] == b'b' { 2 } else { 1 };
            let hashes = b[k..].iter().take_while(|&&c| c == b'#').count();
            b.get(k + hashes) == Some(&b'"')
        } {
            let k = i + if b[i] == b'b' { 2 } else { 1 };
            let hashes = b[k..].iter().take_while(|&&c| c == b'#').count();
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let body = k + hashes + 1;
            let end = b[body..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |p| body + p + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a): only the former is blanked.
            if b.get(i + 1) == Some(&b'\\') {
                // The escaped character itself may be a quote ('\''), so search after it.
                let end = b[(i + 3).min(b.len())..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map_or(b.len(), |p| i + 3 + p + 1);
                blank(&mut out, i, end);
                i = end;
            } else if let Some(len) = src[i + 1..].chars().next().map(char::len_utf8) {
                if b.get(i + 1 + len) == Some(&b'\'') {
                    blank(&mut out, i, i + 2 + len);
                    i += 2 + len;
                } else {
                    i += 1;
                }
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn skip_ws(code: &[u8], mut i: usize) -> usize {
    while i < code.len() && code[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The identifier starting at `i` (after whitespace), and the index after it.
fn ident_at(code: &[u8], i: usize) -> Option<(String, usize)> {
    let i = skip_ws(code, i);
    let len = code[i..].iter().take_while(|&&c| is_ident(c)).count();
    (len > 0).then(|| {
        (
            String::from_utf8_lossy(&code[i..i + len]).into_owned(),
            i + len,
        )
    })
}

/// `::` at `i` (after whitespace): the index after it.
fn path_sep_at(code: &[u8], i: usize) -> Option<usize> {
    let i = skip_ws(code, i);
    code[i..].starts_with(b"::").then_some(i + 2)
}

/// The first segment after a path prefix ending at `i`: one name, the names at the top of a
/// `{...}` group, or `*`.
fn first_segments(code: &[u8], i: usize) -> Vec<String> {
    let i = skip_ws(code, i);
    if code.get(i) == Some(&b'{') {
        let (mut depth, mut j, mut names, mut expect_name) = (1, i + 1, Vec::new(), true);
        while j < code.len() && depth > 0 {
            match code[j] {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                b',' if depth == 1 => expect_name = true,
                c if depth == 1 && expect_name && is_ident(c) => {
                    let (name, end) = ident_at(code, j).expect("ident");
                    if name != "self" {
                        names.push(name);
                    }
                    expect_name = false;
                    j = end;
                    continue;
                }
                b'*' if depth == 1 && expect_name => {
                    names.push("*".to_owned());
                    expect_name = false;
                }
                _ => {}
            }
            j += 1;
        }
        names
    } else if code.get(i) == Some(&b'*') {
        vec!["*".to_owned()]
    } else {
        ident_at(code, i).map(|(n, _)| vec![n]).unwrap_or_default()
    }
}

/// Whether the statement or item containing `at` carries `#[cfg(test)]`: the text since the
/// previous `;`, `{` or `}` (where its attributes are) mentions `cfg(test)`.
fn item_is_test_only(code: &[u8], at: usize) -> bool {
    let start = code[..at]
        .iter()
        .rposition(|&c| matches!(c, b';' | b'{' | b'}'))
        .map_or(0, |p| p + 1);
    String::from_utf8_lossy(&code[start..at]).contains("cfg(test)")
}

#[derive(Debug, PartialEq, Eq)]
struct Use {
    line: usize,
    /// The top-level module the path reaches (`*` for a glob of the crate root).
    target: String,
}

/// Every reference of a file at `rel` (relative to `src/`) into a top-level module, and every
/// use of a crate in `crates`, with whether it is test-only.
fn scan(rel: &str, src: &str, crates: &[&str]) -> (Vec<Use>, Vec<(usize, String, bool)>) {
    let code = code_only(src);
    let line_of = |i: usize| code[..i].iter().filter(|&&c| c == b'\n').count() + 1;
    let file_path = module_path(rel);
    let mut inline: Vec<(String, usize, bool)> = Vec::new(); // (name, depth inside, test-only)
    let (mut depth, mut uses, mut crate_uses) = (0usize, Vec::new(), Vec::new());
    let mut i = 0;
    while i < code.len() {
        let c = code[i];
        if c == b'{' {
            depth += 1;
            i += 1;
            continue;
        }
        if c == b'}' {
            if inline.last().is_some_and(|m| m.1 == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
            continue;
        }
        if !is_ident(c) || (i > 0 && (is_ident(code[i - 1]) || code[i - 1] == b'$')) {
            i += 1;
            continue;
        }
        let (word, end) = ident_at(&code, i).expect("ident");
        match word.as_str() {
            "mod" => {
                if let Some((name, after)) = ident_at(&code, end) {
                    let brace = skip_ws(&code, after);
                    if code.get(brace) == Some(&b'{') {
                        depth += 1;
                        let test_only =
                            item_is_test_only(&code, i) || inline.last().is_some_and(|m| m.2);
                        inline.push((name, depth, test_only));
                        i = brace + 1;
                        continue;
                    }
                }
            }
            "crate" => {
                if let Some(after) = path_sep_at(&code, end) {
                    for target in first_segments(&code, after) {
                        uses.push(Use {
                            line: line_of(i),
                            target,
                        });
                    }
                }
            }
            "super" => {
                let mut current: Vec<String> = file_path.clone();
                current.extend(inline.iter().map(|m| m.0.clone()));
                let mut at = end;
                let mut climbs = 0;
                while let Some(after) = path_sep_at(&code, at) {
                    climbs += 1;
                    match ident_at(&code, after) {
                        Some((next, next_end)) if next == "super" => at = next_end,
                        _ => {
                            at = after;
                            break;
                        }
                    }
                }
                if climbs > 0 {
                    let kept = current.len().saturating_sub(climbs);
                    let targets = if kept == 0 {
                        first_segments(&code, at)
                    } else {
                        vec![current[0].clone()]
                    };
                    for target in targets {
                        uses.push(Use {
                            line: line_of(i),
                            target,
                        });
                    }
                }
            }
            w if crates.contains(&w) => {
                let test_only = item_is_test_only(&code, i) || inline.last().is_some_and(|m| m.2);
                crate_uses.push((line_of(i), word.clone(), test_only));
            }
            _ => {}
        }
        i = end;
    }
    (uses, crate_uses)
}

/// The rule violations of one file at `rel` (relative to `src/`).
fn violations(rel: &str, src: &str) -> Vec<String> {
    let path = module_path(rel);
    let Some(top) = path.first() else {
        // lib.rs: only the simulator rule applies.
        let (_, crates) = scan(rel, src, TEST_ONLY_CRATES);
        return crates
            .into_iter()
            .filter(|c| !c.2)
            .map(|(line, name, _)| format!("src/{rel}:{line}: `{name}` outside #[cfg(test)]"))
            .collect();
    };
    let allowed = RULES
        .iter()
        .find(|(m, _)| m == top)
        .map(|(_, a)| *a)
        .unwrap_or_else(|| panic!("src/{rel}: top-level module `{top}` has no layering rule"));
    let mut crates_checked: Vec<&str> = TEST_ONLY_CRATES.to_vec();
    crates_checked.push("rocprofiler_sdk_sys");
    let (uses, crates) = scan(rel, src, &crates_checked);
    let mut found = Vec::new();
    for u in uses {
        if u.target != *top && !allowed.contains(&u.target.as_str()) {
            found.push(format!("src/{rel}:{}: `{top}` uses `{}`", u.line, u.target));
        }
    }
    for (line, name, test_only) in crates {
        if name == "rocprofiler_sdk_sys" {
            if !SDK_SYS_USERS.contains(&top.as_str()) {
                found.push(format!("src/{rel}:{line}: `{top}` uses SDK types ({name})"));
            }
        } else if !test_only {
            found.push(format!("src/{rel}:{line}: `{name}` outside #[cfg(test)]"));
        }
    }
    found
}

#[test]
fn lib_declares_exactly_the_layered_modules() {
    let lib = fs::read_to_string(src_dir().join("lib.rs")).expect("read lib.rs");
    let code = String::from_utf8(code_only(&lib)).expect("utf8");
    let declared: BTreeSet<String> = code
        .lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("pub ").unwrap_or(l.trim());
            l.strip_prefix("mod ")?.strip_suffix(';').map(str::to_owned)
        })
        .collect();
    let ruled: BTreeSet<String> = RULES.iter().map(|(m, _)| (*m).to_owned()).collect();
    assert_eq!(
        declared, ruled,
        "every top-level module needs a row in RULES and in docs/ARCHITECTURE.md"
    );
}

#[test]
fn source_follows_the_layering_rules() {
    let root = src_dir();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    assert!(
        files.len() > 20,
        "expected the product's sources under {root:?}"
    );
    let mut found = Vec::new();
    let mut references = 0;
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .expect("under src")
            .to_string_lossy();
        let src = fs::read_to_string(file).expect("read source");
        references += scan(&rel, &src, &[]).0.len();
        found.extend(violations(&rel, &src));
    }
    // Guards the scanner itself: the product's modules do reference each other.
    assert!(
        references > 50,
        "only {references} module references found; scanner broken?"
    );
    assert!(
        found.is_empty(),
        "layering violations:\n{}",
        found.join("\n")
    );
}

#[test]
fn scanner_reports_what_breaks_a_rule() {
    let v = violations(
        "tracer/x.rs",
        "use crate::event::E;\nuse crate::collector::Collector;\n",
    );
    assert_eq!(v, ["src/tracer/x.rs:2: `tracer` uses `collector`"]);

    let v = violations(
        "collector/x.rs",
        "use crate::{\n    event::E,\n    export::{a, b},\n    sink,\n};\n",
    );
    assert_eq!(v, ["src/collector/x.rs:1: `collector` uses `export`"]);

    // `super::` resolves through inline modules; climbing to the root names the next segment.
    let src = "mod m {\n    use super::super::Y;\n    use super::super::super::ffi::Z;\n}\n";
    assert_eq!(
        violations("export/x.rs", src),
        ["src/export/x.rs:3: `export` uses `ffi`"]
    );
    assert_eq!(
        violations("event.rs", "use super::tracer::T;\n"),
        ["src/event.rs:1: `event` uses `tracer`"]
    );
    assert!(violations("tracer/mod.rs", "mod t {\n    use super::*;\n}\n").is_empty());

    // Comments, strings and chars are not code; `$crate` is a macro's own crate.
    let src = "// crate::ffi\n/* crate::export */\nconst S: &str = \"crate::ffi\";\n\
               const R: &str = r#\"crate::ffi\"#;\nconst C: char = '\"';\n\
               macro_rules! m { () => { $crate::ffi::x() }; }\nfn f<'a>(_: &'a u8) {}\n";
    assert!(
        violations("sink.rs", src).is_empty(),
        "{:?}",
        violations("sink.rs", src)
    );

    assert_eq!(
        violations("export/x.rs", "use rocprofiler_sdk_sys as sys;\n"),
        ["src/export/x.rs:1: `export` uses SDK types (rocprofiler_sdk_sys)"]
    );
    assert_eq!(
        violations("lib.rs", "use rocprofiler_sdk_sim as _;\n"),
        ["src/lib.rs:1: `rocprofiler_sdk_sim` outside #[cfg(test)]"]
    );
    assert!(violations("lib.rs", "#[cfg(test)]\nuse rocprofiler_sdk_sim as _;\n").is_empty());
    assert!(violations(
        "tracer/x.rs",
        "#[cfg(test)]\nmod tests {\n    use rocprofiler_sdk_sim::X;\n}\n"
    )
    .is_empty());
}

/// A file's module as written in reports: `ffi/bridge`, `crate` for lib.rs.
fn module_name(path: &[String]) -> String {
    if path.is_empty() {
        "crate".to_owned()
    } else {
        path.join("/")
    }
}

/// The file modules a file's code refers to: `crate::`, `super::` and `self::` paths, and paths
/// that start with a child module the file declares (`mod x;` then `x::...`), each resolved to
/// the longest file module it names. A reference to the file's own module or to one of its
/// ancestors is not an edge (a child using its parent's items is normal), nor is one made only
/// under `#[cfg(test)]`.
fn file_references(rel: &str, src: &str, modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let code = code_only(src);
    let file = module_path(rel);
    let text = String::from_utf8_lossy(&code);
    let children: BTreeSet<String> = text
        .split(';')
        .filter_map(|statement| {
            let words: Vec<&str> = statement.split_whitespace().collect();
            match words.as_slice() {
                [.., "mod", name] if name.bytes().all(is_ident) => Some((*name).to_owned()),
                _ => None,
            }
        })
        .collect();
    let mut inline: Vec<(String, usize, bool)> = Vec::new();
    let (mut depth, mut found) = (0usize, BTreeSet::new());
    let mut i = 0;
    while i < code.len() {
        match code[i] {
            b'{' => depth += 1,
            b'}' => {
                if inline.last().is_some_and(|m| m.1 == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        let starts_path = is_ident(code[i])
            && (i == 0 || !(is_ident(code[i - 1]) || code[i - 1] == b'$' || code[i - 1] == b':'));
        if !starts_path {
            i += 1;
            continue;
        }
        let (word, end) = ident_at(&code, i).expect("ident");
        if word == "mod" {
            if let Some((name, after)) = ident_at(&code, end) {
                let brace = skip_ws(&code, after);
                if code.get(brace) == Some(&b'{') {
                    depth += 1;
                    let test_only =
                        item_is_test_only(&code, i) || inline.last().is_some_and(|m| m.2);
                    inline.push((name, depth, test_only));
                    i = brace + 1;
                    continue;
                }
            }
        }
        let mut current = file.clone();
        current.extend(inline.iter().map(|m| m.0.clone()));
        // The segments of the path starting here, up to a `{...}` group or its last name.
        let mut segments = vec![word.clone()];
        let mut at = end;
        let mut group = Vec::new();
        while let Some(after) = path_sep_at(&code, at) {
            match ident_at(&code, after) {
                Some((next, next_end)) => {
                    segments.push(next);
                    at = next_end;
                }
                None => {
                    group = first_segments(&code, after);
                    break;
                }
            }
        }
        i = at.max(end);
        let test_only = item_is_test_only(&code, i) || inline.last().is_some_and(|m| m.2);
        if test_only || (segments.len() == 1 && group.is_empty()) {
            continue;
        }
        let mut absolute = match segments[0].as_str() {
            "crate" => Vec::new(),
            "self" => current.clone(),
            "super" => {
                let climbs = segments.iter().take_while(|s| *s == "super").count();
                current[..current.len().saturating_sub(climbs)].to_vec()
            }
            name if inline.is_empty() && children.contains(name) => file.clone(),
            _ => continue,
        };
        let skip = match segments[0].as_str() {
            "crate" | "self" => 1,
            "super" => segments.iter().take_while(|s| *s == "super").count(),
            _ => 0,
        };
        absolute.extend(segments[skip..].iter().cloned());
        let targets = if group.is_empty() {
            vec![absolute]
        } else {
            group
                .iter()
                .map(|name| [absolute.clone(), vec![name.clone()]].concat())
                .collect()
        };
        for target in targets {
            let Some(module) = (0..=target.len())
                .rev()
                .map(|len| target[..len].to_vec())
                .find(|prefix| modules.contains(prefix))
            else {
                continue;
            };
            if !file.starts_with(&module) {
                found.insert(module);
            }
        }
    }
    found
}

/// The import circles among the files of `files` (path relative to `src/`, source): each as
/// its modules, the first one repeated at the end. Found by one depth-first walk, so each
/// strongly connected group of files shows at least one of its circles.
fn import_circles(files: &[(String, String)]) -> Vec<String> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(rel, _)| module_path(rel)).collect();
    let edges: std::collections::BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = files
        .iter()
        .map(|(rel, src)| (module_path(rel), file_references(rel, src, &modules)))
        .collect();
    fn visit(
        node: &Vec<String>,
        edges: &std::collections::BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        done: &mut BTreeSet<Vec<String>>,
        stack: &mut Vec<Vec<String>>,
        found: &mut Vec<String>,
    ) {
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(at) = stack.iter().position(|n| n == next) {
                let mut circle: Vec<String> = stack[at..].iter().map(|m| module_name(m)).collect();
                circle.push(module_name(next));
                found.push(circle.join(" -> "));
            } else if !done.contains(next) {
                visit(next, edges, done, stack, found);
            }
        }
        stack.pop();
        done.insert(node.clone());
    }
    let (mut done, mut found) = (BTreeSet::new(), Vec::new());
    for node in edges.keys() {
        if !done.contains(node) {
            visit(node, &edges, &mut done, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn no_import_circle_among_files() {
    let root = src_dir();
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|path| {
            let rel = path.strip_prefix(&root).expect("under src");
            let src = fs::read_to_string(path).expect("read source");
            (rel.to_string_lossy().replace('\\', "/"), src)
        })
        .collect();
    // Guards the scanner itself: the product's files do reference each other.
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(rel, _)| module_path(rel)).collect();
    let edges: usize = files
        .iter()
        .map(|(rel, src)| file_references(rel, src, &modules).len())
        .sum();
    assert!(
        edges > 50,
        "only {edges} references between files; scanner broken?"
    );
    let circles = import_circles(&files);
    assert!(
        circles.is_empty(),
        "import circles among src/ files:\n{}",
        circles.join("\n")
    );
}

#[test]
fn scanner_reports_an_import_circle_among_files() {
    let file = |rel: &str, src: &str| (rel.to_owned(), src.to_owned());
    let mut files = vec![
        file("lib.rs", "pub mod ffi;\n"),
        file("ffi/mod.rs", "mod bridge;\nmod columns;\n"),
        // A parent naming its child module.
        file("ffi/bridge.rs", "mod collector;\nuse collector::export;\n"),
        // A child using its parent's items is not an edge.
        file(
            "ffi/bridge/collector.rs",
            "use super::{ok, Status};\nuse crate::ffi::columns::Sink;\n",
        ),
        file("ffi/columns.rs", "use super::bridge::{Span, Plane};\n"),
    ];
    assert_eq!(
        import_circles(&files),
        ["ffi/bridge -> ffi/bridge/collector -> ffi/columns -> ffi/bridge"]
    );
    // The columns naming no bridge: no circle; nor does a test-only reference make one.
    files[4] = file(
        "ffi/columns.rs",
        "pub struct Span;\n#[cfg(test)]\nmod tests {\n    use super::super::bridge::Plane;\n}\n",
    );
    assert!(
        import_circles(&files).is_empty(),
        "{:?}",
        import_circles(&files)
    );
}
