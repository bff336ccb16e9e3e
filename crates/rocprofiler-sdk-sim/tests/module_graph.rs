//! The modules of every crate in the workspace form no import cycle: every `crate::` and
//! `super::` path in a crate's `src/**/*.rs` (comments and string literals ignored) is an edge
//! from the file's module to the deepest module it names, and the graph of those edges must be
//! acyclic. A cycle means two rooms (in the simulator: the C face, the engine and its shutdown
//! order, time, HIP, scenarios) need each other; one of them should own the shared piece
//! instead. The product's own layering (which layer may use which) is `tests/layering.rs` at
//! the root.
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `scenario/parse.rs` -> `scenario::parse`, `sdk/mod.rs` -> `sdk`, `lib.rs` -> ``.
fn module_of(rel: &str) -> String {
    let rel = rel.strip_suffix(".rs").unwrap();
    let rel = rel.strip_suffix("/mod").unwrap_or(rel);
    if rel == "lib" {
        String::new()
    } else {
        rel.replace('/', "::")
    }
}

/// The source without comments, string and char literals (so prose names no module).
fn code_only(text: &str) -> String {
    let (mut out, mut chars) = (String::new(), text.chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if !escaped && c == '"' {
                        break;
                    }
                    escaped = !escaped && c == '\\';
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// Paths after `prefix` in `code`, with `prefix{a, b::c}` groups expanded one level.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut item, mut end) = (0, String::new(), false);
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => end = true,
                    '}' => depth -= 1,
                    ',' if depth == 0 => found.push(std::mem::take(&mut item)),
                    _ if depth == 0 => item.push(c),
                    _ => {}
                }
                if end {
                    break;
                }
            }
            found.push(item);
        } else {
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            found.push(path);
        }
    }
    found
        .into_iter()
        .map(|p| p.split_whitespace().collect::<String>())
        .collect()
}

/// The deepest known module that `path` (relative to `base`) names.
fn resolve(base: &str, path: &str, modules: &BTreeSet<String>) -> Option<String> {
    let mut best = None;
    let mut current = base.to_owned();
    for part in path.split("::").filter(|p| !p.is_empty()) {
        current = if current.is_empty() {
            part.to_owned()
        } else {
            format!("{current}::{part}")
        };
        if modules.contains(&current) {
            best = Some(current.clone());
        } else {
            break;
        }
    }
    best
}

/// The `src` folders of the workspace's crates: the root crate and each of `crates/`.
fn workspace_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut sources = vec![root.join("src")];
    for entry in fs::read_dir(root.join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            sources.push(src);
        }
    }
    sources.sort();
    sources
}

fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let rel = |p: &Path| p.strip_prefix(src).unwrap().to_string_lossy().into_owned();
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&rel(f))).collect();
    let mut edges = BTreeMap::new();
    for file in &files {
        let module = module_of(&rel(file));
        let code = code_only(&fs::read_to_string(file).unwrap());
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p).to_owned();
        let mut to = BTreeSet::new();
        for path in paths_after(&code, "crate::") {
            to.extend(resolve("", &path, &modules));
        }
        for path in paths_after(&code, "super::") {
            to.extend(resolve(&parent, &path, &modules));
        }
        // A module's own ancestors are not edges: a child using its parent's items (`impl
        // Tracer` split over `tracer/sdk/setup.rs`, `tracer/session/mod.rs`, ...) is one room in
        // several files. Cycles between siblings and cousins are what this test is for.
        to.retain(|target| !is_ancestor_or_self(target, &module));
        edges.insert(module, to);
    }
    edges
}

/// Whether `ancestor` is `module` or contains it (`` contains everything).
fn is_ancestor_or_self(ancestor: &str, module: &str) -> bool {
    ancestor.is_empty()
        || module == ancestor
        || module
            .strip_prefix(ancestor)
            .is_some_and(|rest| rest.starts_with("::"))
}

/// A cycle, if any (depth-first search).
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut found = stack[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if !done.insert(node.to_owned()) {
            return None;
        }
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, stack, done) {
                return Some(found);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_crate_of_the_workspace_has_an_import_cycle() {
    let sources = workspace_sources();
    assert!(
        sources.len() >= 7,
        "workspace crates not found: {sources:?}"
    );
    let simulator = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(
        simulator.contains_key("scenario::parse")
            && simulator["scenario::parse"].contains("scenario::model"),
        "the graph builder no longer sees the simulator's edges"
    );
    for src in sources {
        if let Some(found) = cycle(&graph(&src)) {
            panic!("import cycle in {}: {}", src.display(), found.join(" -> "));
        }
    }
}

#[test]
fn a_cycle_is_found() {
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a", &["b"][..]),
        ("b", &["c"][..]),
        ("c", &["a"][..]),
        ("d", &[][..]),
    ]
    .into_iter()
    .map(|(from, to)| {
        (
            from.to_owned(),
            to.iter().map(|t| (*t).to_owned()).collect(),
        )
    })
    .collect();
    assert_eq!(
        cycle(&edges).map(|c| c.len()),
        Some(4),
        "a -> b -> c -> a expected"
    );
}
