//! No crate of the workspace has an import cycle between its modules.
//!
//! For every member of the workspace (read from the root `Cargo.toml`) and
//! every crate root it has (`src/lib.rs`, `src/main.rs`), the test follows
//! the `mod NAME;` declarations to the files, and reads in each file the
//! paths that name a module of the crate: those that start with `crate::`,
//! `super::` or `self::`, and those that start with the name of one of the
//! file's submodules (in `use` declarations, grouped or not, and in code).
//! A path leads to the deepest module it names; a name that a module
//! imports from one of its submodules (`pub use spec::SpecError` in
//! lib.rs) leads on to that submodule. Comments, strings, `#[cfg(test)]`
//! items (a test may use anything) and re-exports (`pub use`, a module's
//! facade rather than its code) are left out.
//!
//! A path from module A to module B is an edge between the two children of
//! their closest common parent that hold them: sibling modules, at every
//! depth. A strongly connected component of more than one sibling is a
//! cycle, and the test fails naming it. A parent's own code (lib.rs,
//! mod.rs) and a child using each other — the parent holding what its
//! children share — is the usual shape of a Rust module and is only
//! printed.
//!
//! `cargo test -p yolah --test module_graph -- --nocapture` prints every
//! crate's edges.

mod tokens;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use tokens::{is_ident, is_reexport, module_paths, tokens, use_statements, without_tests, Token};

/// Modules under one parent: each → the siblings it uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// A file of a crate and its module path (empty for the root).
struct Module {
    path: Vec<String>,
    tokens: Vec<Token>,
}

/// The `mod NAME;` declarations of a file (at its top level).
fn declared_modules(tokens: &[Token], file: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    for (i, t) in tokens.iter().enumerate() {
        match t {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => depth -= 1,
            Token::Ident(m) if m == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Punct(';'))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    assert_eq!(depth, 0, "{}: mod {name}; inside a block", file.display());
                    out.push(name.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// Every module file of the crate rooted at `root`, by module path.
fn crate_modules(root: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), Vec::<String>::new())];
    while let Some((file, path)) = stack.pop() {
        let source =
            fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let tokens = without_tests(tokens(&source));
        let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let dir = if path.is_empty() || name == "mod" {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for child in declared_modules(&tokens, &file) {
            let flat = dir.join(format!("{child}.rs"));
            let nested = dir.join(&child).join("mod.rs");
            let found = if flat.exists() { flat } else { nested };
            assert!(found.exists(), "{}: mod {child} not found", file.display());
            let mut child_path = path.clone();
            child_path.push(child);
            stack.push((found, child_path));
        }
        out.push(Module { path, tokens });
    }
    out
}

/// The names a module imports from its own submodules, each with the
/// submodule (`pub use spec::{Spec, SpecError}` gives `Spec → spec`): how
/// `crate::Spec` leads to the module that defines it.
fn imports_from_children(module: &Module, children: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (start, end) in use_statements(&module.tokens) {
        let mut statement = &module.tokens[start..end];
        if is_ident(statement.first(), "self")
            || (module.path.is_empty() && is_ident(statement.first(), "crate"))
        {
            statement = &statement[2.min(statement.len())..];
        }
        let Some(Token::Ident(child)) = statement.first() else {
            continue;
        };
        if children.contains(child) {
            for t in statement {
                if let Token::Ident(name) = t {
                    out.entry(name.clone()).or_insert_with(|| child.clone());
                }
            }
        }
    }
    out
}

/// A crate's module graphs, one per module that has submodules: between
/// the submodules of that parent (each with everything below it), and the
/// loops through the parent's own code, which are allowed.
#[derive(Default)]
struct CrateGraph {
    /// Parent → (child → the siblings it uses).
    siblings: BTreeMap<Vec<String>, Graph>,
    /// Parent → the children whose code and the parent's own use each other.
    parent_loops: BTreeMap<Vec<String>, BTreeSet<String>>,
}

/// The module graphs of the crate rooted at `root`.
fn graph(root: &Path) -> CrateGraph {
    let modules = crate_modules(root);
    let paths: BTreeSet<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    let children_of = |parent: &[String]| -> BTreeSet<String> {
        paths
            .iter()
            .filter(|p| p.len() == parent.len() + 1 && p.starts_with(parent))
            .map(|p| p[parent.len()].clone())
            .collect()
    };
    let imports: BTreeMap<Vec<String>, BTreeMap<String, String>> = modules
        .iter()
        .map(|m| {
            (
                m.path.clone(),
                imports_from_children(m, &children_of(&m.path)),
            )
        })
        .collect();
    let resolve = |from: &[String], up: Option<usize>, names: &[String]| -> Vec<String> {
        let mut at = match up {
            None => Vec::new(),
            Some(n) => from[..from.len().saturating_sub(n)].to_vec(),
        };
        for name in names {
            let mut next = at.clone();
            next.push(name.clone());
            if paths.contains(&next) {
                at = next;
                continue;
            }
            // An item: follow the imports that bring it up from below.
            while let Some(child) = imports.get(&at).and_then(|i| i.get(name)) {
                at.push(child.clone());
            }
            break;
        }
        at
    };
    let mut out = CrateGraph::default();
    let mut to_parent = BTreeSet::new();
    let mut from_parent = BTreeSet::new();
    for parent in paths.iter().filter(|p| !children_of(p).is_empty()) {
        let graph = children_of(parent)
            .into_iter()
            .map(|c| (c, BTreeSet::new()))
            .collect();
        out.siblings.insert(parent.clone(), graph);
    }
    for module in &modules {
        let facade: BTreeSet<usize> = use_statements(&module.tokens)
            .into_iter()
            .filter(|&(start, _)| is_reexport(&module.tokens, start))
            .flat_map(|(start, end)| start..end)
            .collect();
        let children = children_of(&module.path);
        for r in module_paths(&module.tokens, &children) {
            if facade.contains(&r.at) {
                continue;
            }
            for names in &r.items {
                let target = resolve(&module.path, r.up, names);
                let from = &module.path;
                let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
                let parent = from[..common].to_vec();
                match (from.get(common), target.get(common)) {
                    (Some(a), Some(b)) => {
                        out.siblings
                            .get_mut(&parent)
                            .unwrap()
                            .get_mut(a)
                            .unwrap()
                            .insert(b.clone());
                    }
                    (Some(a), None) => {
                        to_parent.insert((parent, a.clone()));
                    }
                    (None, Some(b)) => {
                        from_parent.insert((parent, b.clone()));
                    }
                    (None, None) => {}
                }
            }
        }
    }
    for (parent, child) in to_parent.intersection(&from_parent) {
        out.parent_loops
            .entry(parent.clone())
            .or_default()
            .insert(child.clone());
    }
    out
}

/// The cycles of `graph`: its strongly connected components of more than
/// one node (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in &s.graph[v] {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

/// The crate roots of every workspace member.
fn crate_roots(workspace: &Path) -> Vec<PathBuf> {
    let manifest = fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("members = ["))
        .expect("a members list on one line");
    let mut roots = Vec::new();
    for member in members.trim_end_matches(']').split(',') {
        let dir = workspace.join(member.trim().trim_matches('"'));
        for root in ["src/lib.rs", "src/main.rs"] {
            if dir.join(root).exists() {
                roots.push(dir.join(root));
            }
        }
    }
    roots
}

/// How a module path is written in messages.
fn module_name(path: &[String]) -> String {
    if path.is_empty() {
        "the root".to_string()
    } else {
        path.join("::")
    }
}

#[test]
fn no_crate_has_a_cycle_between_its_modules() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let roots = crate_roots(workspace);
    assert!(roots.len() >= 8, "found only {roots:?}");
    let mut failures = Vec::new();
    for root in roots {
        let crate_graph = graph(&root);
        let name = root.strip_prefix(workspace).unwrap().display().to_string();
        println!("{name}:");
        for (parent, graph) in &crate_graph.siblings {
            if graph.values().any(|to| !to.is_empty()) {
                println!("  in {}:", module_name(parent));
            }
            for (from, to) in graph.iter().filter(|(_, to)| !to.is_empty()) {
                println!(
                    "    {from} -> {}",
                    to.iter().cloned().collect::<Vec<_>>().join(", ")
                );
            }
            for cycle in cycles(graph) {
                failures.push(format!(
                    "{name}, in {}: {}",
                    module_name(parent),
                    cycle.join(" <-> ")
                ));
            }
        }
        for (parent, children) in &crate_graph.parent_loops {
            let children: Vec<_> = children.iter().cloned().collect();
            println!(
                "  {}'s own code and {} use each other",
                module_name(parent),
                children.join(", ")
            );
        }
    }
    assert!(
        failures.is_empty(),
        "import cycles:\n{}",
        failures.join("\n")
    );
}

/// The checker sees cycles through a re-export, a group, `super::`, a
/// child's bare name and at any depth, tells a loop through a parent's own
/// code apart, and ignores comments, strings and tests.
#[test]
fn the_checker_finds_cycles_and_only_cycles() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let write = |file: &str, text: &str| {
        let path = dir.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    write(
        "lib.rs",
        "mod a; mod b; mod c; mod d;\npub use a::{Alpha, Aleph as X};\npub use crate::b::Beta;\n\
         pub(crate) use d::Delta;\nfn run() { c::go(); d::h(); }",
    );
    write("a.rs", "use crate::{b::Beta, c};\npub struct Alpha;\n");
    write(
        "b/mod.rs",
        "mod inner;\nmod other;\n// use crate::a;\nconst S: &str = \"crate::c\";\n",
    );
    write("b/inner.rs", "use super::super::X;\nuse super::other::O;\n");
    write("b/other.rs", "fn f() { super::inner::g() }\n");
    write(
        "c.rs",
        "#[cfg(test)]\nmod tests { use crate::d; }\nfn f<'a>(c: &'a char) { let _ = 'x'; }",
    );
    write(
        "d.rs",
        "use crate::run;\n#[cfg(test)]\nuse crate::a;\npub struct Delta;\n",
    );
    let g = graph(&dir.join("lib.rs"));
    let root = &g.siblings[&Vec::new()];
    let edges = |from: &str| root[from].iter().cloned().collect::<Vec<_>>();
    assert_eq!(edges("a"), ["b", "c"]);
    assert_eq!(edges("b"), ["a"]);
    assert!(edges("c").is_empty() && edges("d").is_empty());
    assert_eq!(cycles(root), [["a", "b"]]);
    assert_eq!(
        cycles(&g.siblings[&vec!["b".to_string()]]),
        [["inner", "other"]]
    );
    assert_eq!(
        g.parent_loops[&Vec::new()],
        BTreeSet::from(["d".to_string()])
    );
}
