//! Output paths, checked before the work that fills them: a command that
//! runs for minutes or hours must not end by failing to write, nor write
//! over one of the files it read.

use anyhow::{bail, Context, Result};
use std::fs::OpenOptions;
use std::path::Path;

/// Whether `a` and `b` name the same existing file, however each is
/// spelled (`./d.bin` and `d.bin`, links, `..`).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The one of `inputs` that `out` would write over, if any.
pub fn input_at<'a>(out: &str, inputs: &'a [String]) -> Option<&'a str> {
    inputs
        .iter()
        .find(|i| same_file(Path::new(out), Path::new(i)))
        .map(String::as_str)
}

/// Refuses to write `out` where it is one of `inputs`: the output would
/// replace what was read.
pub fn ensure_not_an_input(out: &str, inputs: &[String], option: &str) -> Result<()> {
    if let Some(input) = input_at(out, inputs) {
        bail!(
            "{option} {out} is the input {input}: writing it would replace it; choose another path"
        );
    }
    Ok(())
}

/// Checks now that `out` can be written later: an existing file is opened
/// for writing (and left as it is), a new one is created and removed
/// again.
pub fn ensure_writable(out: &str, option: &str) -> Result<()> {
    let path = Path::new(out);
    if path.is_dir() {
        bail!("{option} {out} is a directory: give a file");
    }
    let cannot = || format!("{option} {out} cannot be written");
    if path.exists() {
        OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(cannot)?;
    } else {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(cannot)?;
        std::fs::remove_file(path).with_context(cannot)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_spelled_two_ways_is_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("d.bin");
        std::fs::write(&file, b"x").unwrap();
        let other = dir.path().join(".").join("d.bin");
        assert!(same_file(&file, &other));
        assert!(!same_file(&file, &dir.path().join("e.bin")));
        let (f, o) = (file.to_str().unwrap(), other.to_str().unwrap());
        let e = ensure_not_an_input(o, &[f.to_string()], "--out").unwrap_err();
        assert!(e.to_string().contains("would replace it"), "{e}");
        ensure_not_an_input(
            dir.path().join("e.bin").to_str().unwrap(),
            &[f.to_string()],
            "--out",
        )
        .unwrap();
    }

    #[test]
    fn a_writable_path_is_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.bin");
        ensure_writable(new.to_str().unwrap(), "--out").unwrap();
        assert!(!new.exists());
        let old = dir.path().join("old.bin");
        std::fs::write(&old, b"kept").unwrap();
        ensure_writable(old.to_str().unwrap(), "--out").unwrap();
        assert_eq!(std::fs::read(&old).unwrap(), b"kept");
        let missing = dir.path().join("no/such/dir/x.bin");
        let e = ensure_writable(missing.to_str().unwrap(), "--out").unwrap_err();
        assert!(e.to_string().contains("cannot be written"), "{e}");
        let e = ensure_writable(dir.path().to_str().unwrap(), "--out").unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
    }
}
