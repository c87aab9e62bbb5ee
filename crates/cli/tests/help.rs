//! Every command's own help starts with the description `yolah --help`
//! lists for it. Commands are built lazily (clap's `defer`), and a
//! deferred argument struct's doc comment would silently replace that
//! description: each command sets it from its module's `ABOUT` twice.

use std::process::Command;

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_yolah"))
        .args(args)
        .output()
        .expect("the yolah binary runs");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

#[test]
fn each_command_describes_itself_as_the_list_does() {
    let top = help(&["--help"]);
    let listed: Vec<(&str, &str)> = top
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.trim().split_once(' '))
        .map(|(name, about)| (name, about.trim()))
        .filter(|(name, _)| *name != "help")
        .collect();
    assert!(listed.len() >= 10, "{top}");
    for (name, about) in listed {
        for asked in [[name, "-h"], [name, "--help"], ["help", name]] {
            let own = help(&asked);
            let command = asked.join(" ");
            assert_eq!(own.lines().next(), Some(about), "`yolah {command}`:\n{own}");
        }
    }
}
