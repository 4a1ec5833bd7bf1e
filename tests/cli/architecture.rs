//! The architecture, held to the code: the rooms and the boundaries between them.
//!
//! No module uses another that uses it back, directly or around a circle, in any crate.
//!
//! Read from the sources as text. An import is an edge: every `crate::…`, `super::…` and
//! `self::…` path (in `use` lines, brace groups included, and inline) is resolved to the
//! module file that defines it — the longest prefix that is a module, or, for a name the crate
//! root re-exports, the module it re-exports from. Items of the crate root itself (`App`,
//! `Db`, …) are shared by every module and make no edge.
//!
//! A call is an edge too: the use cases reach each other through methods of one type whose
//! `impl` blocks span many modules (`App`, `Db`). A call `app.m(…)`, `db.m(…)`,
//! `self.db().m(…)`, or `self.m(…)` inside such an `impl`, goes to the module whose `impl`
//! defines `m` (each such name is defined once: tested). A circle fails with the names that
//! tie it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

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

/// Whitespace before a `.` that continues an expression is dropped (`self\n    .db()\n
/// .book(` reads `self.db().book(`), so that calls over several lines are seen.
fn joined(code: &str) -> String {
    let bytes = code.as_bytes();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            let continues = bytes.get(j) == Some(&b'.')
                && bytes
                    .get(j + 1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_');
            if !continues {
                out.push_str(&code[i..j]);
            }
            i = j;
        } else {
            let c = code[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The inherent `impl` blocks of `code` (not `impl Trait for …`): the type's name and the
/// block's byte range.
fn impl_blocks(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("impl") {
        let before = code[..at].chars().next_back();
        let after = code[at + 4..].chars().next();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            || !after.is_some_and(char::is_whitespace) && after != Some('<')
        {
            continue;
        }
        let Some(open) = code[at..].find('{').map(|o| at + o) else {
            continue;
        };
        let head = &code[at + 4..open];
        if head.contains(" for ") || head.contains(';') || head.contains('(') {
            continue;
        }
        // The type: the last path segment before any generics (`impl<T> a::Foo<T>` is Foo).
        let head = head.trim();
        let head = if head.starts_with('<') {
            let mut depth = 0;
            let mut end = head.len();
            for (i, c) in head.char_indices() {
                match c {
                    '<' => depth += 1,
                    '>' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            head[end..].trim()
        } else {
            head
        };
        let name = head.split('<').next().unwrap_or_default();
        let name = name.rsplit("::").next().unwrap_or_default().trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut depth = 0usize;
        let mut end = code.len();
        for (i, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push((name.to_owned(), open..end));
    }
    out
}

/// The methods of the types whose inherent `impl` blocks span several modules of a crate:
/// type → method → the modules whose `impl` defines it.
type Methods = BTreeMap<String, BTreeMap<String, BTreeSet<Module>>>;

/// A crate's sources: each module with its code (comments and tests left out, lines joined
/// as [`joined`] does).
fn sources(src: &Path) -> Vec<(Module, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .iter()
        .map(|file| {
            // Tests inside a module see everything; they are not the module's own uses.
            let text = std::fs::read_to_string(file).unwrap();
            let text = code(text.split("#[cfg(test)]").next().unwrap_or_default());
            (module_of(src, file), joined(&text))
        })
        .collect()
}

fn methods_of(sources: &[(Module, String)]) -> Methods {
    let mut all: Methods = BTreeMap::new();
    for (module, text) in sources {
        for (ty, range) in impl_blocks(text) {
            let block = &text[range];
            for (at, _) in block.match_indices("fn ") {
                let before = block[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let name = ident(&block[at + 3..]);
                if !name.is_empty() {
                    all.entry(ty.clone())
                        .or_default()
                        .entry(name.to_owned())
                        .or_default()
                        .insert(module.clone());
                }
            }
        }
    }
    all.retain(|_, methods| {
        let modules: BTreeSet<&Module> = methods.values().flatten().collect();
        modules.len() > 1
    });
    all
}

/// The calls in `text` of methods in `methods`: (type, method name).
fn calls_in(text: &str, methods: &Methods) -> Vec<(String, String)> {
    let blocks = impl_blocks(text);
    let enclosing = |at: usize| {
        blocks
            .iter()
            .filter(|(ty, r)| r.contains(&at) && methods.contains_key(ty))
            .min_by_key(|(_, r)| r.len())
            .map(|(ty, _)| ty.clone())
    };
    // Receivers: a variable named as the type (`app`, `db`), `self` in the type's own impl,
    // and the database reached through `db()`.
    let named: Vec<(String, String)> = methods
        .keys()
        .map(|ty| (ty.to_lowercase(), ty.clone()))
        .collect();
    let mut receivers: Vec<(&str, Option<&str>)> = vec![
        ("self.db()", Some("Db")),
        ("app.db()", Some("Db")),
        ("self.app.db()", Some("Db")),
        ("self.app", Some("App")),
        ("self", None),
    ];
    receivers.extend(
        named
            .iter()
            .map(|(var, ty)| (var.as_str(), Some(ty.as_str()))),
    );
    receivers.sort_by_key(|(r, _)| std::cmp::Reverse(r.len()));
    let mut out = Vec::new();
    for (at, _) in text.match_indices('.') {
        let before = &text[..at];
        let name = ident(&text[at + 1..]);
        let rest = &text[at + 1 + name.len()..];
        if name.is_empty() || !(rest.starts_with('(') || rest.starts_with("::<")) {
            continue;
        }
        let Some((_, ty)) = receivers.iter().find(|(r, _)| {
            before.ends_with(r)
                && !before[..before.len() - r.len()]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        }) else {
            continue;
        };
        let ty = match ty {
            Some(ty) => Some((*ty).to_owned()),
            None => enclosing(at),
        };
        if let Some(ty) = ty
            && methods.get(&ty).is_some_and(|m| m.contains_key(name))
        {
            out.push((ty, name.to_owned()));
        }
    }
    out
}

/// The import edges between one crate's modules: from → to → the names that tie them.
fn crate_edges(src: &Path) -> BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>> {
    let sources = sources(src);
    let modules: BTreeSet<Module> = sources.iter().map(|(m, _)| m.clone()).collect();
    let root = sources
        .iter()
        .find(|(m, _)| m.is_empty())
        .map(|(_, text)| text.clone())
        .unwrap_or_default();
    let reexported = reexports(&root, &modules);
    let methods = methods_of(&sources);
    let mut edges: BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>> = BTreeMap::new();
    for (from, text) in &sources {
        let mut paths: Vec<Vec<String>> = paths_after(text, "crate::");
        for path in paths_after(text, "super::") {
            // `super::super::x`: one level up for the anchor and one for each `super` after it.
            let ups = 1 + path.iter().take_while(|p| *p == "super").count();
            let base = &from[..from.len().saturating_sub(ups)];
            paths.push([base, &path[ups - 1..]].concat());
        }
        for path in paths_after(text, "self::") {
            paths.push([&from[..], &path[..]].concat());
        }
        let mut targets: Vec<(Module, String)> = Vec::new();
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
            targets.push((to, path.last().cloned().unwrap_or_default()));
        }
        for (ty, name) in calls_in(text, &methods) {
            for to in &methods[&ty][&name] {
                targets.push((to.clone(), format!("{ty}::{name}()")));
            }
        }
        for (to, name) in targets {
            // A module and its own submodules are one room: a parent declares its children.
            if to == *from || to.starts_with(from) || from.starts_with(&to) {
                continue;
            }
            edges
                .entry(from.clone())
                .or_default()
                .entry(to)
                .or_default()
                .insert(name);
        }
    }
    edges
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let sources = crate_sources();
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

/// The crates' source folders.
fn crate_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![root.join("src"), root.join("migrations/src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            sources.push(src);
        }
    }
    sources
}

/// A method of `App` or `Db` is defined in one module, so a call names one file: a reader who
/// follows `app.cancel_booking(…)` finds its definition by its name. And the calls are seen:
/// the use cases' calls of each other resolve to the modules that define them.
#[test]
fn each_shared_method_is_defined_once_and_its_calls_are_seen() {
    let mut twice = Vec::new();
    let mut resolved: BTreeMap<String, usize> = BTreeMap::new();
    for src in crate_sources() {
        let sources = sources(&src);
        let methods = methods_of(&sources);
        for (ty, names) in &methods {
            for (name, modules) in names {
                if modules.len() > 1 {
                    let modules: Vec<String> = modules.iter().map(|m| m.join("::")).collect();
                    twice.push(format!("{ty}::{name} in {}", modules.join(", ")));
                }
            }
        }
        for (_, text) in &sources {
            for (ty, name) in calls_in(text, &methods) {
                *resolved.entry(format!("{ty}::{name}")).or_default() += 1;
            }
        }
    }
    assert!(
        twice.is_empty(),
        "methods defined in more than one module: {twice:#?}"
    );
    for expected in [
        "App::cancel_in_full",
        "App::listing_record",
        "Db::search_touch",
        "Runner::measure",
    ] {
        assert!(
            resolved.contains_key(expected),
            "the checker does not see calls of {expected}; it resolves {:?}",
            resolved.keys().collect::<Vec<_>>()
        );
    }
    assert!(
        resolved.len() > 150,
        "only {} methods' calls resolved",
        resolved.len()
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

/// Calls tie modules too: `app.x()` from one use case, and `self.y()` inside the other's
/// `impl App`, over lines as rustfmt breaks them, make a circle no import shows.
#[test]
fn the_circle_checker_finds_a_circle_of_calls() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |name: &str, text: &str| std::fs::write(src.join(name), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\npub struct App;\n");
    write(
        "a.rs",
        "impl crate::App {\n    pub fn cancel(&self) {\n        self\n            .refund();\n    }\n}\n",
    );
    write(
        "b.rs",
        "impl crate::App {\n    pub fn refund(&self) {}\n}\n\
         pub fn sweep(app: &crate::App) {\n    app.cancel();\n}\n",
    );
    // A method of another type of the same name is not App's.
    write(
        "c.rs",
        "struct Other;\nimpl Other {\n    fn cancel(&self) {}\n    fn go(&self) { self.cancel(); }\n}\n",
    );
    let edges = crate_edges(src);
    let (a, b, c) = (
        vec!["a".to_owned()],
        vec!["b".to_owned()],
        vec!["c".to_owned()],
    );
    assert!(edges[&a][&b].contains("App::refund()"), "{edges:?}");
    assert!(edges[&b][&a].contains("App::cancel()"), "{edges:?}");
    assert!(!edges.contains_key(&c), "{edges:?}");
    assert_eq!(circles(&edges).len(), 1);
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

/// Boundaries that hold: the HTTP layer, the worker and the binary work through `app` (its
/// read models and use cases) and `domain`, never the store, sea-orm, or app's database,
/// dispatcher and Redis handles (which only app's own integration tests reach, through its
/// `testing` feature). A renamed column cannot break them.
#[test]
fn api_worker_and_binary_name_no_store_item() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["crates/api/src", "crates/worker/src", "src"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "{files:?}");
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for forbidden in [
            "store::",
            "sea_orm::",
            ".db()",
            ".dispatcher()",
            ".notifier()",
            ".redis()",
        ] {
            assert!(
                !text.contains(forbidden),
                "{} names `{forbidden}`: go through app",
                file.display()
            );
        }
    }
    for manifest in [
        "crates/api/Cargo.toml",
        "crates/worker/Cargo.toml",
        "Cargo.toml",
    ] {
        let text = std::fs::read_to_string(root.join(manifest)).unwrap();
        let package = text.find("[package]").unwrap_or(0);
        let deps = text[package..]
            .split("\n[")
            .find(|section| section.starts_with("dependencies]"))
            .unwrap_or_default();
        for line in deps.lines().skip(1) {
            assert!(
                !(line.starts_with("store") || line.starts_with("sea-orm")),
                "{manifest} depends on the store: {line}"
            );
        }
    }
    // The outbound rules are the platform's (`outbound`), not the harness's: no edge from the
    // API to `bench`, not even for its tests.
    let api = std::fs::read_to_string(root.join("crates/api/Cargo.toml")).unwrap();
    assert!(
        !api.lines().any(|line| line.starts_with("bench")),
        "the API depends on the harness"
    );
    // The OpenAI wire format and SSE are read in one place (`crates/openai`).
    let mut sources = Vec::new();
    for dir in ["crates", "src"] {
        rust_files(&root.join(dir), &mut sources);
    }
    for file in sources.iter().filter(|f| {
        let path = f.to_string_lossy();
        !path.contains("crates/openai/") && !path.contains("/tests/")
    }) {
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for parsing in ["b\"data:", "\"data:"] {
            assert!(
                !code.contains(parsing),
                "{} reads SSE itself (`{parsing}`): use crates/openai",
                file.display()
            );
        }
    }
}

/// The workspace's members, as `Cargo.toml` lists them.
fn workspace_members() -> Vec<String> {
    let manifest = std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    let list = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("a [workspace] members list");
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect()
}

/// What `ARCHITECTURE.md` names in backticks that looks like a path of this repository.
fn named_paths(text: &str) -> Vec<String> {
    const TOP: [&str; 9] = [
        "src/",
        "crates/",
        "migrations/",
        "tests/",
        "scripts/",
        "docs/",
        "openapi/",
        ".ci/",
        ".config/",
    ];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| TOP.iter().any(|top| s.starts_with(top)))
        .map(|s| s.trim_end_matches('/').to_owned())
        .collect()
}

#[test]
fn architecture_names_existing_paths_and_every_workspace_member() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let paths = named_paths(&text);
    assert!(paths.len() > 50, "{paths:?}");
    let missing: Vec<_> = paths
        .iter()
        .filter(|p| {
            // `src/*_bench.rs`: a pattern stands for the files it matches.
            match p.split_once('*') {
                Some((dir_and_prefix, suffix)) => {
                    let (dir, prefix) = dir_and_prefix
                        .rsplit_once('/')
                        .unwrap_or(("", dir_and_prefix));
                    !std::fs::read_dir(Path::new(ROOT).join(dir))
                        .map(|entries| {
                            entries.flatten().any(|e| {
                                let name = e.file_name().to_string_lossy().into_owned();
                                name.starts_with(prefix) && name.ends_with(suffix)
                            })
                        })
                        .unwrap_or(false)
                }
                None => !Path::new(ROOT).join(p).exists(),
            }
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );

    let members = workspace_members();
    assert!(members.len() > 10, "{members:?}");
    let unnamed: Vec<_> = members
        .iter()
        .filter(|m| {
            let named = if m.as_str() == "." {
                "src/main.rs"
            } else {
                m.as_str()
            };
            !paths.iter().any(|p| p == named)
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md does not name these workspace members: {unnamed:?}"
    );
}

/// `ARCHITECTURE.md`'s "Where is …" map stays true: each name given in parentheses right after
/// a file it names (`` `path.rs` (`name`, …) ``) is defined in that file.
#[test]
fn the_where_is_map_names_what_each_file_defines() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let map = text
        .split("## Where is")
        .nth(1)
        .expect("a \"Where is\" section");
    let map = map.split("\n## ").next().unwrap_or(map);
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (i, piece) in map.split('`').enumerate() {
        if i % 2 == 0 || !piece.ends_with(".rs") {
            continue;
        }
        // What follows the path: ` (`a`, `b` …)`.
        let rest: String = map.split('`').skip(i + 1).collect::<Vec<_>>().join("`");
        let Some(inside) = rest.strip_prefix(" (").and_then(|r| r.split(')').next()) else {
            continue;
        };
        let source = std::fs::read_to_string(Path::new(ROOT).join(piece))
            .unwrap_or_else(|e| panic!("{piece}: {e}"));
        for name in inside.split('`').skip(1).step_by(2) {
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            checked += 1;
            // Or a life cycle `domain::status`'s `life_cycle!` declares (`BadgeState, "badge" {`).
            let defined = ["fn", "struct", "enum", "const", "type", "mod", "trait"]
                .iter()
                .any(|kind| source.contains(&format!("{kind} {name}")))
                || source.contains(&format!("\n    {name}, \""));
            if !defined {
                wrong.push(format!("{piece}: {name}"));
            }
        }
    }
    assert!(checked >= 5, "only {checked} names checked");
    assert!(
        wrong.is_empty(),
        "names the map puts where they are not defined: {wrong:?}"
    );
}

/// Each crate's workspace dependencies (`[dependencies]`, not its tests') are the ones
/// `ARCHITECTURE.md` draws: lower crates never reach up (`domain` uses `catalog`, not the
/// other way), and a new edge is a decision made here.
#[test]
fn each_crate_depends_on_the_crates_the_map_draws() {
    let declared: &[(&str, &[&str])] = &[
        ("crates/catalog", &[]),
        ("crates/domain", &["catalog"]),
        ("crates/openai", &[]),
        ("crates/outbound", &[]),
        ("crates/attest", &[]),
        ("crates/tlog", &[]),
        ("crates/queue", &[]),
        ("crates/payments", &[]),
        ("crates/client", &[]),
        ("crates/sim", &["openai"]),
        ("crates/bench", &["domain", "openai", "outbound"]),
        ("crates/store", &["domain", "migration", "tlog"]),
        // Migrations that landed before new ones stopped importing workspace crates use these;
        // they are never edited, so the edge stays (a new migration copies what it needs).
        ("migrations", &["attest", "tlog"]),
        (
            "crates/app",
            &[
                "attest", "bench", "catalog", "domain", "openai", "outbound", "payments", "queue",
                "store", "tlog",
            ],
        ),
        (
            "crates/api",
            &["app", "catalog", "domain", "openai", "outbound"],
        ),
        ("crates/worker", &["app"]),
        (
            ".",
            &[
                "api", "app", "attest", "bench", "client", "domain", "openai", "outbound", "sim",
                "tlog", "worker",
            ],
        ),
    ];
    let workspace: BTreeSet<&str> = [
        "api",
        "app",
        "attest",
        "bench",
        "catalog",
        "client",
        "domain",
        "migration",
        "openai",
        "outbound",
        "payments",
        "queue",
        "sim",
        "store",
        "tlog",
        "worker",
    ]
    .into();
    let mut wrong = Vec::new();
    for (dir, expected) in declared {
        let manifest = std::fs::read_to_string(Path::new(ROOT).join(dir).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{dir}: {e}"));
        let package = manifest.find("[package]").unwrap_or(0);
        let deps = manifest[package..]
            .split("\n[")
            .find(|section| section.starts_with("dependencies]"))
            .unwrap_or_default();
        let found: BTreeSet<&str> = deps
            .lines()
            .skip(1)
            .filter_map(|line| line.split(['.', ' ', '=']).next())
            .filter(|name| workspace.contains(name))
            .collect();
        let expected: BTreeSet<&str> = expected.iter().copied().collect();
        if found != expected {
            wrong.push(format!("{dir}: uses {found:?}, the map draws {expected:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "crates' edges differ from the map:\n{}",
        wrong.join("\n")
    );
}

/// The contexts `ARCHITECTURE.md` declares: for each crate (`app`, `store`), each top-level
/// module's context (a context's folder, or a kernel module at the root), and the contexts
/// each may use.
struct Contexts {
    of: BTreeMap<&'static str, BTreeMap<String, String>>,
    may_use: BTreeMap<String, BTreeSet<String>>,
}

fn contexts() -> Contexts {
    let text = std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let table = text
        .split("## Contexts")
        .nth(1)
        .expect("a \"Contexts\" section")
        .split("\n## ")
        .next()
        .unwrap_or_default();
    let names = |cell: &str| -> Vec<String> {
        cell.split(',')
            .map(|n| n.trim().trim_matches('`').to_owned())
            .filter(|n| !n.is_empty())
            .collect()
    };
    let mut contexts = Contexts {
        of: BTreeMap::new(),
        may_use: BTreeMap::new(),
    };
    // The first table of the section: one row per context.
    for row in table
        .lines()
        .skip_while(|l| !l.starts_with("| Context"))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Context"))
    {
        let cells: Vec<&str> = row.trim_matches('|').split('|').collect();
        let [context, may_use, app, store] = cells[..] else {
            panic!("a row of the contexts' table has not four cells: {row}");
        };
        let context = context.trim().to_owned();
        contexts
            .may_use
            .insert(context.clone(), names(may_use).into_iter().collect());
        for (krate, cell) in [("app", app), ("store", store)] {
            for module in names(cell) {
                // A context's folder bears its name: the folder is where a module's context
                // is declared.
                let module = match module.strip_suffix('/') {
                    Some(folder) => {
                        assert_eq!(
                            folder, context,
                            "{krate}: the folder {folder}/ is {context}'s"
                        );
                        folder.to_owned()
                    }
                    None => module,
                };
                let previous = contexts
                    .of
                    .entry(krate)
                    .or_default()
                    .insert(module.clone(), context.clone());
                assert!(previous.is_none(), "{krate}::{module} is in two contexts");
            }
        }
    }
    contexts
}

/// What breaks the layering in the crate at `src`: modules of no context, contexts naming
/// modules that do not exist, and edges (imports or calls) from one context to another it may
/// not use. The crate root is the kernel's.
fn layering_breaks(
    krate: &str,
    src: &Path,
    of: &BTreeMap<String, String>,
    may_use: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let context_of = |module: &Module| -> Option<&str> {
        match module.first() {
            None => Some("kernel"),
            Some(top) => of.get(top).map(String::as_str),
        }
    };
    let mut wrong = Vec::new();
    let mut seen = BTreeSet::new();
    for (module, _) in sources(src) {
        match context_of(&module) {
            Some(_) => {
                seen.insert(module.first().cloned().unwrap_or_default());
            }
            None => wrong.push(format!(
                "{krate}::{} belongs to no context of ARCHITECTURE.md",
                module.join("::")
            )),
        }
    }
    for named in of.keys() {
        if !seen.contains(named) {
            wrong.push(format!(
                "ARCHITECTURE.md names {krate}::{named}, which does not exist"
            ));
        }
    }
    for (from, tos) in crate_edges(src) {
        let Some(a) = context_of(&from) else { continue };
        for (to, names) in tos {
            let Some(b) = context_of(&to) else { continue };
            if a != b && !may_use.get(a).is_some_and(|allowed| allowed.contains(b)) {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                wrong.push(format!(
                    "{krate}: {} ({a}) -> {} ({b}): {}",
                    from.join("::"),
                    to.join("::"),
                    names.join(", ")
                ));
            }
        }
    }
    wrong
}

/// Every module of `app` and `store` belongs to the context `ARCHITECTURE.md` gives it, and
/// uses (imports or calls) only modules its context may: the layering holds, and a new module
/// or edge is a decision written into the map.
#[test]
fn contexts_use_only_the_contexts_below_them() {
    let contexts = contexts();
    assert!(contexts.may_use.len() >= 6, "{:?}", contexts.may_use.keys());
    let mut wrong = Vec::new();
    for krate in ["app", "store"] {
        let src = Path::new(ROOT).join("crates").join(krate).join("src");
        wrong.extend(layering_breaks(
            krate,
            &src,
            &contexts.of[krate],
            &contexts.may_use,
        ));
    }
    assert!(
        wrong.is_empty(),
        "the contexts' layering is broken:\n{}",
        wrong.join("\n")
    );
}

/// The layering check finds a call upwards (a lower context's module calling a higher one's
/// method) and a module no context names.
#[test]
fn the_layering_check_finds_a_call_upwards() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |name: &str, text: &str| std::fs::write(src.join(name), text).unwrap();
    write(
        "lib.rs",
        "mod low;\nmod high;\nmod stray;\npub struct App;\n",
    );
    write(
        "low.rs",
        "impl crate::App {\n    pub fn base(&self) {\n        self.top();\n    }\n}\n",
    );
    write(
        "high.rs",
        "impl crate::App {\n    pub fn top(&self) {\n        self.base();\n    }\n}\n",
    );
    write("stray.rs", "pub fn alone() {}\n");
    let of: BTreeMap<String, String> = [("low", "identity"), ("high", "market")]
        .map(|(m, c)| (m.to_owned(), c.to_owned()))
        .into();
    let may_use: BTreeMap<String, BTreeSet<String>> = [
        ("identity".to_owned(), ["kernel".to_owned()].into()),
        (
            "market".to_owned(),
            ["kernel".to_owned(), "identity".to_owned()].into(),
        ),
    ]
    .into();
    let found = layering_breaks("planted", src, &of, &may_use);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].contains("stray"), "{found:#?}");
    assert!(
        found[1].contains("low (identity) -> high (market): App::top()"),
        "{found:#?}"
    );
}
