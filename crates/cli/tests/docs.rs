//! The docs are true: every check here compares a page in `docs/` (or the
//! README) with the program or the workspace it describes.
//!
//! * `docs/cli.md` holds every command's `--help` as the program prints it,
//!   and its prose names only flags the command has;
//! * `docs/architecture.md` lists every crate with its true dependencies
//!   (from `cargo metadata`) and a file map whose paths exist and cover
//!   every source file;
//! * every relative link in the README and `docs/` leads to a file, and
//!   every `#anchor` to a heading of that file.
//!
//! `UPDATE_DOCS=1 cargo test -p yolah-cli --test docs` rewrites the help
//! blocks of `docs/cli.md` from the program; everything else is written by
//! hand and only checked.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (two levels above this crate).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `yolah ARGS`' standard output (the command must succeed).
fn yolah_output(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(args)
        .output()
        .expect("the yolah binary runs");
    assert!(out.status.success(), "yolah {args:?} failed");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The subcommands `yolah --help` lists (without `help`).
fn subcommands() -> Vec<String> {
    let help = yolah_output(&["--help"]);
    let listed = help
        .split("Commands:")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("a Commands: section");
    listed
        .lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The long flags (`--name`) a help text or a piece of prose mentions.
fn long_flags(text: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before = start.checked_sub(1).map(|b| bytes[b]);
        let mut end = start + 2;
        while end < bytes.len() && (bytes[end].is_ascii_lowercase() || bytes[end] == b'-') {
            end += 1;
        }
        let name = &text[start + 2..end];
        // `--` alone, `---` rules and words like `a--b` are not flags.
        let after_word = before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !name.is_empty() && !name.starts_with('-') && !after_word {
            flags.insert(name.trim_end_matches('-').to_string());
        }
        i = end.max(start + 2);
    }
    flags
}

const HELP_MARK: &str = "<!-- help: ";

/// `docs/cli.md` cut into sections by `## ` headings: (heading, text).
fn sections(page: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in page.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            out.push((title.trim().to_string(), String::new()));
        } else if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

/// The page with every help block replaced by the program's own help.
fn with_fresh_help(page: &str) -> String {
    let mut out = String::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        let Some(command) = line
            .strip_prefix(HELP_MARK)
            .and_then(|rest| rest.strip_suffix(" -->"))
        else {
            continue;
        };
        assert_eq!(
            lines.next(),
            Some("```text"),
            "a ```text block after {line}"
        );
        for old in lines.by_ref() {
            if old == "```" {
                break;
            }
        }
        out.push_str("```text\n");
        out.push_str(yolah_output(&[command, "--help"]).trim_end());
        out.push_str("\n```\n");
    }
    out
}

#[test]
fn cli_reference_holds_every_commands_help() {
    let page = read("docs/cli.md");
    let fresh = with_fresh_help(&page);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(root().join("docs/cli.md"), &fresh).unwrap();
    } else if fresh != page {
        let first = page
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "docs/cli.md's help blocks differ from the program's --help (first at line {}); \
             run `UPDATE_DOCS=1 cargo test -p yolah-cli --test docs` and read the diff",
            first + 1
        );
    }

    let commands = subcommands();
    let flags_of: BTreeMap<&str, BTreeSet<String>> = commands
        .iter()
        .map(|c| {
            (
                c.as_str(),
                long_flags(&yolah_output(&[c.as_str(), "--help"])),
            )
        })
        .collect();
    let sections: BTreeMap<String, String> = sections(&page).into_iter().collect();
    for command in &commands {
        let text = sections
            .get(command)
            .unwrap_or_else(|| panic!("docs/cli.md has no `## {command}` section"));
        assert!(
            text.contains(&format!("{HELP_MARK}{command} -->")),
            "docs/cli.md's {command} section has no help block"
        );
        // The prose outside the help block may only name flags that exist:
        // on a line that runs `yolah OTHER`, OTHER's; elsewhere the section's.
        let prose = text.split(HELP_MARK).next().unwrap_or_default();
        for line in prose.lines() {
            // Each `yolah OTHER …` in a line runs OTHER with the flags up to
            // the next `yolah`; text before any is the section's.
            for (i, segment) in without_quoted(line).split("yolah ").enumerate() {
                let named = segment.split_whitespace().next().unwrap_or_default();
                let runs = match commands.iter().find(|c| i > 0 && c.as_str() == named) {
                    Some(other) => other.as_str(),
                    None => command.as_str(),
                };
                for flag in long_flags(segment) {
                    assert!(
                        flags_of[runs].contains(&flag) || OTHER_PROGRAMS.contains(&flag.as_str()),
                        "docs/cli.md's {command} section mentions --{flag}, which `yolah {runs}` \
                         does not take: {line}"
                    );
                }
            }
        }
    }
}

/// The text without its double-quoted parts, where other programs' flags
/// live (`engine:cmd="./my_bot --fast"`).
fn without_quoted(text: &str) -> String {
    text.split('"').step_by(2).collect::<Vec<_>>().join(" ")
}

/// Flags of other programs (cargo) that prose may name.
const OTHER_PROGRAMS: [&str; 3] = ["release", "path", "test"];

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// turned into hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown file's headings (outside code blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The relative link targets `[text](target)` of a markdown file, outside
/// code blocks.
fn links(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                let target = &rest[..end];
                if !target.contains("://") && !target.starts_with("mailto:") {
                    out.push(target.to_string());
                }
                rest = &rest[end..];
            }
        }
    }
    out
}

/// The markdown pages a reader meets: the README, `docs/` and the crates'.
fn pages() -> Vec<String> {
    let mut pages = vec!["README.md".to_string(), "python/README.md".to_string()];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    pages.sort();
    pages
}

#[test]
fn every_link_in_the_docs_leads_somewhere() {
    for page in pages() {
        let text = read(&page);
        let dir = Path::new(&page).parent().unwrap_or(Path::new(""));
        for link in links(&text) {
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file).to_string_lossy().into_owned()
            };
            let path = root().join(&target);
            assert!(path.exists(), "{page}: the link ({link}) leads to nothing");
            if !fragment.is_empty() {
                assert!(
                    target.ends_with(".md"),
                    "{page}: ({link}) has an anchor into a non-markdown file"
                );
                assert!(
                    anchors(&read(&target)).contains(fragment),
                    "{page}: ({link}): {target} has no heading with anchor #{fragment}"
                );
            }
        }
    }
}

/// The backquoted words of a markdown table cell.
fn quoted_words(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(|w| w.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

/// Each workspace crate's normal and build dependencies, from `cargo metadata`.
fn workspace_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let dependencies = package["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            (package["name"].as_str().unwrap().to_string(), dependencies)
        })
        .collect()
}

#[test]
fn crate_table_matches_the_manifests() {
    let page = read("docs/architecture.md");
    let mut rows = page
        .lines()
        .skip_while(|line| !line.starts_with("| crate | folder | depends on |"))
        .skip(2)
        .take_while(|line| line.starts_with('|'));
    let mut documented = BTreeMap::new();
    for row in rows.by_ref() {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let name = quoted_words(cells[1])
            .into_iter()
            .next()
            .expect("a crate name");
        documented.insert(name, quoted_words(cells[3]));
    }
    let actual = workspace_dependencies();
    assert_eq!(
        documented.keys().collect::<Vec<_>>(),
        actual.keys().collect::<Vec<_>>(),
        "docs/architecture.md's crate table lists other crates than the workspace has"
    );
    for (name, dependencies) in &actual {
        assert_eq!(
            &documented[name], dependencies,
            "docs/architecture.md: the dependencies of {name} are not what its Cargo.toml says"
        );
    }
}

/// Every file under `dir` (relative to the root) whose name ends with
/// `suffix`, recursively.
fn files_ending(dir: &str, suffix: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
        return;
    };
    for entry in entries {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let path = format!("{dir}/{name}");
        if root().join(&path).is_dir() {
            files_ending(&path, suffix, out);
        } else if name.ends_with(suffix) {
            out.push(path);
        }
    }
}

#[test]
fn file_map_is_true_and_whole() {
    let page = read("docs/architecture.md");
    let map: Vec<String> = page
        .split("## File map")
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|block| block.split("```").next())
        .expect("a ```text block under ## File map")
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect();
    for path in &map {
        assert!(
            root().join(path).exists(),
            "docs/architecture.md's file map names {path}, which does not exist"
        );
    }
    let mut sources = Vec::new();
    for dir in ["src", "magicgen/src", "python/src"] {
        files_ending(dir, ".rs", &mut sources);
    }
    // The Python package's modules and the scripts the docs run.
    files_ending("python/yolah", ".py", &mut sources);
    files_ending("scripts", "", &mut sources);
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        files_ending(&format!("crates/{name}/src"), ".rs", &mut sources);
    }
    for file in sources {
        assert!(
            map.iter().any(|entry| *entry == file
                || (entry.ends_with('/') && file.starts_with(entry.as_str()))),
            "docs/architecture.md's file map does not cover {file}"
        );
    }
}

#[test]
fn readme_is_a_front_page() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: it is the front page; details belong in docs/"
    );
}

/// The README's picture of the game is the board `yolah` prints after the
/// move it names, drawn by the program rather than by hand.
#[test]
fn readme_picture_is_the_programs_board() {
    let readme = read("README.md");
    let start = readme
        .find("```text\n8  ")
        .expect("the README's picture of the board");
    let picture: Vec<&str> = readme[start..].lines().skip(1).take(9).collect();
    let mv = picture[8]
        .split("(after Black's ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(')'))
        .expect("the picture says which move it shows: (after Black's d5:b7)");
    let board_part = |l: &&str| {
        l.chars()
            .take(23)
            .collect::<String>()
            .trim_end()
            .to_string()
    };
    let shown: Vec<String> = picture.iter().map(board_part).collect();
    let out = yolah_output(&["analyse", "--moves", mv, "--player", "random"]);
    let board: Vec<String> = out
        .lines()
        .take(9)
        .map(|l| l.trim_end().to_string())
        .collect();
    assert_eq!(
        shown, board,
        "README.md's picture against `yolah analyse --moves {mv}`"
    );
}

#[test]
fn flags_are_found_in_help_and_prose() {
    let flags = long_flags("use --games 10 and --sprt elo0=0; not a--b nor ---");
    assert_eq!(
        flags.into_iter().collect::<Vec<_>>(),
        ["games".to_string(), "sprt".to_string()]
    );
    assert_eq!(
        anchor("Runs bigger than one machine"),
        "runs-bigger-than-one-machine"
    );
    assert_eq!(anchor("`nn`"), "nn");
}

/// A line of an engine's answer with the clock's fields (`nps`, `time`)
/// blanked, for comparing runs.
fn without_clock(line: &str) -> String {
    let mut words: Vec<&str> = line.split(' ').collect();
    for i in 1..words.len() {
        if matches!(words[i - 1], "nps" | "time") && words[0] == "info" {
            words[i] = "*";
        }
    }
    words.join(" ")
}

/// The first word of a line: what a line after `…` is compared by.
fn first_word(line: &str) -> &str {
    line.split(' ').next().unwrap_or_default()
}

#[test]
fn engine_protocol_session_replays() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::Duration;

    let page = read("docs/engine-protocol.md");
    let session: Vec<&str> = page
        .split("## A complete session")
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|block| block.split("```").next())
        .expect("a ```text block under ## A complete session")
        .lines()
        .collect();
    let mut engine = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(["engine", "--player", "alphabeta:depth=3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("yolah engine starts");
    let mut stdin = engine.stdin.take().unwrap();
    let stdout = BufReader::new(engine.stdout.take().unwrap());
    let (lines, answers) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let next = || {
        answers
            .recv_timeout(Duration::from_secs(20))
            .expect("the engine answers within 20 s")
    };
    // After a `…`, the clock decides what comes: lines are skipped until
    // one with the expected first word, and compared by that word only.
    let mut loose = false;
    for (number, line) in session.iter().enumerate() {
        let at = number + 1;
        if let Some(command) = line.strip_prefix("> ") {
            writeln!(stdin, "{command}").unwrap();
            stdin.flush().unwrap();
        } else if *line == "< …" {
            loose = true;
        } else if let Some(expected) = line.strip_prefix("< ") {
            if loose {
                let mut got = next();
                while first_word(&got) != first_word(expected) {
                    got = next();
                }
                loose = false;
            } else {
                let got = next();
                assert_eq!(
                    without_clock(&got),
                    without_clock(expected),
                    "docs/engine-protocol.md, line {at} of the session"
                );
            }
        } else {
            panic!(
                "docs/engine-protocol.md, line {at} of the session: {line:?} is neither > nor <"
            );
        }
    }
    let (exited, exit) = mpsc::channel();
    std::thread::spawn(move || exited.send(engine.wait()));
    let status = exit
        .recv_timeout(Duration::from_secs(20))
        .expect("the engine quits within 20 s after `quit`");
    assert!(status.unwrap().success());
}

/// A `$ yolah …` line's arguments, split as a shell would for the quoting
/// the docs use (double quotes only).
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            _ => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// A line of output with what the clock decides blanked: a number before
/// `s`, `s,`, `games/s` or `M nodes/s`, and in a JSON object the
/// `seconds` and `nodes_per_second` fields.
fn without_timing(line: &str) -> String {
    if let Ok(serde_json::Value::Object(mut obj)) = serde_json::from_str(line) {
        obj.remove("seconds");
        obj.remove("nodes_per_second");
        return serde_json::Value::Object(obj).to_string();
    }
    let words: Vec<&str> = line.split(' ').collect();
    let timed = |next: Option<&&str>| {
        matches!(
            next.map(|w| w.trim_end_matches([',', ')'])),
            Some("s" | "games/s" | "M")
        )
    };
    let out: Vec<String> = (0..words.len())
        .map(|i| {
            let number = words[i].trim_start_matches('(').parse::<f64>().is_ok();
            if number && timed(words.get(i + 1)) {
                "*".to_string()
            } else {
                words[i].to_string()
            }
        })
        .collect();
    out.join(" ")
}

/// Every transcript in `docs/cli.md` (a `console` block whose first line
/// is `$ yolah …`) is what the program prints today, but for the clock's
/// figures; a line `…something…` stands for any lines.
#[test]
fn cli_reference_transcripts_replay() {
    let page = read("docs/cli.md");
    let mut checked = 0;
    for block in page.split("```console\n").skip(1) {
        let block = block.split("```").next().unwrap_or_default();
        let mut lines = block.lines();
        let Some(command) = lines.next().and_then(|l| l.strip_prefix("$ yolah ")) else {
            continue;
        };
        let args = shell_words(command);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = yolah_output(&args);
        let out: Vec<String> = out.lines().map(without_timing).collect();
        // Each run of lines between `…` lines appears, in order, in the output.
        let mut from = 0;
        let expected: Vec<String> = lines.map(without_timing).collect();
        for part in expected.split(|l| l.starts_with('…')) {
            if part.is_empty() {
                continue;
            }
            let at = (from..(out.len() + 1).saturating_sub(part.len()))
                .find(|&i| out[i..i + part.len()] == *part)
                .unwrap_or_else(|| {
                    panic!(
                        "docs/cli.md, `yolah {command}`: expected\n{}\nin\n{}",
                        part.join("\n"),
                        out.join("\n")
                    )
                });
            from = at + part.len();
        }
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} transcripts found");
}

#[test]
fn shell_words_and_timing_blanks() {
    assert_eq!(
        shell_words(r#"analyse --moves "d5:b7 e5:c7" --json"#),
        ["analyse", "--moves", "d5:b7 e5:c7", "--json"]
    );
    assert_eq!(
        without_timing("55.1 plies a game; 0.161 s, 622963 games/s"),
        "55.1 plies a game; * s, * games/s"
    );
    assert_eq!(
        without_timing("Elo difference +35 ± 30 (95%), 0.1 s"),
        "Elo difference +35 ± 30 (95%), * s"
    );
    assert_eq!(without_timing(r#"{"seconds":1,"a":2}"#), r#"{"a":2}"#);
}
