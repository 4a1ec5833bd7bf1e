//! No module imports another that imports it back, directly or around a circle, in any crate.
//!
//! Read from the sources as text: every `crate::…`, `super::…` and `self::…` path (in `use`
//! lines, brace groups included, and inline) is resolved to the module file that defines it —
//! the longest prefix that is a module, or, for a name the crate root re-exports, the module
//! it re-exports from. Items of the crate root itself (`App`, `Db`, …) are shared by every
//! module and make no edge. A circle fails with the names that tie it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module as its path below the crate root (`[]`: the root).
type Module = Vec<String>;

/// Every `.rs` file below `dir`.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file defines: `a/b.rs` and `a/b/mod.rs` are `[a, b]`; `lib.rs`, `main.rs`: `[]`.
fn module_of(src: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text without comments (line comments and doc comments; block comments are not used).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string (a URL) is rare in paths' lines; cut at the first.
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path that follows `anchor` (`crate::`, `super::`, `self::`), brace groups expanded:
/// `crate::{a::B, c}` gives `[a, B]` and `[c]`.
fn paths_after(code: &str, anchor: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(anchor) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue; // `my_crate::`, not `crate::`; the rest of a `super::super::` chain
        }
        let rest = &code[at + anchor.len()..];
        let mut chars = rest.char_indices().peekable();
        parse_tree(rest, &mut chars, Vec::new(), &mut out);
    }
    out
}

/// Parses `ident(::ident)*(::{tree, …})?` from `chars`, pushing each full path onto `out`.
fn parse_tree(
    text: &str,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) {
    loop {
        while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
            chars.next();
        }
        match chars.peek().copied() {
            Some((_, '{')) => {
                chars.next();
                loop {
                    parse_tree(text, chars, prefix.clone(), out);
                    while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
                        chars.next();
                    }
                    match chars.next() {
                        Some((_, ',')) => {
                            while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
                                chars.next();
                            }
                            if chars.peek().is_some_and(|(_, c)| *c == '}') {
                                chars.next();
                                return;
                            }
                        }
                        _ => return,
                    }
                }
            }
            Some((start, c)) if c.is_alphabetic() || c == '_' => {
                let mut end = start;
                while let Some((i, c)) = chars.peek().copied() {
                    if c.is_alphanumeric() || c == '_' {
                        end = i + c.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                prefix.push(text[start..end].to_owned());
                if text[end..].starts_with("::") {
                    chars.next();
                    chars.next();
                    continue;
                }
                // `as` renames and anything else end the path.
                out.push(prefix);
                return;
            }
            _ => {
                if !prefix.is_empty() {
                    out.push(prefix);
                }
                return;
            }
        }
    }
}

/// The names the crate root re-exports (`pub use a::b::{C, d};`) and the module of each.
fn reexports(root_code: &str, modules: &BTreeSet<Module>) -> BTreeMap<String, Module> {
    let mut names = BTreeMap::new();
    for statement in root_code.split(';') {
        let Some(at) = statement.find("pub use ") else {
            continue;
        };
        let tail = format!("crate::{}", &statement[at + "pub use ".len()..]);
        for path in paths_after(&tail, "crate::") {
            if let Some(name) = path.last()
                && let Some(module) = longest_module(&path[..path.len() - 1], modules)
                && !module.is_empty()
            {
                names.insert(name.clone(), module);
            }
        }
    }
    names
}

fn longest_module(path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains(prefix))
}

/// The circles among `edges` (Tarjan's strongly connected components of more than one module).
fn circles(edges: &BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on_stack: BTreeSet<Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit(state: &mut State<'_>, node: &Module) {
        let n = state.index.len();
        state.index.insert(node.clone(), n);
        state.low.insert(node.clone(), n);
        state.stack.push(node.clone());
        state.on_stack.insert(node.clone());
        let targets: Vec<Module> = state
            .edges
            .get(node)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        for target in targets {
            if !state.index.contains_key(&target) {
                visit(state, &target);
                let low = state.low[node].min(state.low[&target]);
                state.low.insert(node.clone(), low);
            } else if state.on_stack.contains(&target) {
                let low = state.low[node].min(state.index[&target]);
                state.low.insert(node.clone(), low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(&top);
                let done = &top == node;
                component.push(top);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                state.out.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.out
}

/// The import edges between one crate's modules: from → to → the names that tie them.
fn crate_edges(src: &Path) -> BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(src, f)).collect();
    let root = ["lib.rs", "main.rs"]
        .iter()
        .map(|name| src.join(name))
        .find(|p| p.exists())
        .map(|p| code(&std::fs::read_to_string(p).unwrap()))
        .unwrap_or_default();
    let reexported = reexports(&root, &modules);
    let mut edges: BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let from = module_of(src, file);
        // Tests inside a module see everything; they are not the module's imports.
        let text = std::fs::read_to_string(file).unwrap();
        let text = code(text.split("#[cfg(test)]").next().unwrap_or_default());
        let mut paths: Vec<Vec<String>> = paths_after(&text, "crate::");
        for path in paths_after(&text, "super::") {
            // `super::super::x`: one level up for the anchor and one for each `super` after it.
            let ups = 1 + path.iter().take_while(|p| *p == "super").count();
            let base = &from[..from.len().saturating_sub(ups)];
            paths.push([base, &path[ups - 1..]].concat());
        }
        for path in paths_after(&text, "self::") {
            paths.push([&from[..], &path[..]].concat());
        }
        for path in paths {
            let Some(mut to) = longest_module(&path, &modules) else {
                continue;
            };
            if to.is_empty() {
                match path.first().and_then(|name| reexported.get(name)) {
                    Some(module) => to = module.clone(),
                    None => continue, // an item of the root itself
                }
            }
            // A module and its own submodules are one room: a parent declares its children.
            if to == from || to.starts_with(&from) || from.starts_with(&to) {
                continue;
            }
            edges
                .entry(from.clone())
                .or_default()
                .entry(to)
                .or_default()
                .insert(path.last().cloned().unwrap_or_default());
        }
    }
    edges
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![root.join("src"), root.join("migrations/src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            sources.push(src);
        }
    }
    assert!(sources.len() > 10, "{sources:?}");
    let mut found = Vec::new();
    let mut edges_seen = 0;
    for src in &sources {
        let edges = crate_edges(src);
        edges_seen += edges.values().map(BTreeMap::len).sum::<usize>();
        for circle in circles(&edges) {
            let members: BTreeSet<&Module> = circle.iter().collect();
            let mut ties = Vec::new();
            for from in &circle {
                for (to, names) in &edges[from] {
                    if members.contains(to) {
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        ties.push(format!(
                            "  {} -> {}: {}",
                            from.join("::"),
                            to.join("::"),
                            names.join(", ")
                        ));
                    }
                }
            }
            found.push(format!("{}:\n{}", src.display(), ties.join("\n")));
        }
    }
    // The reader sees the crates' imports at all (a parser that finds nothing passes nothing).
    assert!(
        edges_seen > 100,
        "only {edges_seen} imports between modules"
    );
    assert!(
        found.is_empty(),
        "modules that import each other, directly or around a circle (move what they share \
         below them):\n{}",
        found.join("\n")
    );
}

/// The checker itself finds a circle, through a brace group, a re-export of the root and
/// `super::`, and no edge from a module into its own child.
#[test]
fn the_circle_checker_finds_a_planted_circle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("b")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(src.join(name), text).unwrap();
    write(
        "lib.rs",
        "mod a;\nmod b;\npub use a::Thing;\npub struct App;\n",
    );
    write(
        "a.rs",
        "use crate::{App, b::{c::Helper}};\npub struct Thing;\n",
    );
    write("b/mod.rs", "mod c;\npub use self::c::Helper;\n");
    write(
        "b/c.rs",
        "use super::super::Thing; // via the root's re-export\npub struct Helper;\n",
    );
    let edges = crate_edges(src);
    let a = vec!["a".to_owned()];
    let c = vec!["b".to_owned(), "c".to_owned()];
    assert!(edges[&a].contains_key(&c), "{edges:?}");
    assert!(edges[&c].contains_key(&a), "{edges:?}");
    assert!(
        !edges.contains_key(&vec!["b".to_owned()]),
        "a parent's use of its child is no edge: {edges:?}"
    );
    let found = circles(&edges);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 2);
}

/// The engine seam holds: no production source names a vLLM metric except vLLM's dialect in
/// the harness (`crates/bench/src/engine/vllm.rs`) and the simulator's
/// (`crates/sim/src/dialect/`), so a new engine's dialect is one module, not a search.
#[test]
fn no_vllm_metric_name_outside_its_dialect() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    let allowed = [
        root.join("crates/bench/src/engine/vllm.rs"),
        root.join("crates/sim/src/dialect"),
    ];
    let named: Vec<String> = files
        .iter()
        .filter(|f| !allowed.iter().any(|a| f.starts_with(a)))
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .contains(concat!("vllm", ":num_requests"))
                || std::fs::read_to_string(f)
                    .unwrap()
                    .contains(concat!("\"vllm", ":"))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        named.is_empty(),
        "vLLM metric names outside its dialect: {named:?}"
    );
}
