//! `--climb-log FILE`: the compact pool's climbs, one line each, kept
//! between runs.
//!
//! The pool is most of a compact run's time (tens of minutes), and every
//! climb has its own generator, so a climb never needs doing twice: a killed
//! run resumes from the log, and a run with a larger `--compact` climbs only
//! what the log lacks. The file is plain text:
//!
//! ```text
//! # magicgen climb log: seed 0x0000000000000003, black indexing, 262144 steps per climb
//! orthogonal h8 12 0 0x7ffd9ffbe00041fd
//! diagonal a1 6 3 none
//! ```
//!
//! after the header, one climb per line: slider, square, width, climb number
//! and the multiplier it ended on (`none`: no valid start). Lines are
//! appended as climbs end; a last line cut short by a kill is dropped. Give
//! each run its own log: runs that share one may drop each other's lines.
//!
//! The climbs of the committed table's command are committed too, sorted,
//! in `magicgen/climbs.log`: `.ci/reproduce-magics` starts from a copy of
//! it, and CI climbs 20 of them again (`--recheck-climbs`).

use magicgen::compact::Climb;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Mutex;
use yolah_geometry::magics::Indexing;
use yolah_geometry::{Slider, Square};

/// The header that names the run a log belongs to.
pub fn header(seed: u64, indexing: Indexing, steps: u32) -> String {
    format!(
        "# magicgen climb log: seed 0x{seed:016x}, {} indexing, {steps} steps per climb",
        indexing.name()
    )
}

/// An open climb log, appended to as climbs end.
pub struct ClimbLog {
    path: String,
    file: Mutex<File>,
    /// The first error writing to it, reported once the pool is done.
    error: Mutex<Option<String>>,
}

impl ClimbLog {
    /// Opens the log at `path` for the run named by `header`, creating it if
    /// there is none, and returns the climbs it holds. Refuses a log of
    /// another run and says which line of a damaged one is wrong.
    pub fn open(path: &str, header: &str) -> Result<(ClimbLog, Vec<Climb>), String> {
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8(bytes)
                .map_err(|_| format!("{path} is not a climb log: it is not text"))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("cannot read the climb log {path}: {e}")),
        };
        // A last line without its newline was cut short: drop it.
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        let climbs = if whole == 0 {
            std::fs::write(path, format!("{header}\n"))
                .map_err(|e| format!("cannot write the climb log {path}: {e}"))?;
            Vec::new()
        } else {
            let climbs = parse(path, &text[..whole], header)?;
            if whole < text.len() {
                let file = OpenOptions::new().write(true).open(path);
                file.and_then(|f| f.set_len(whole as u64))
                    .map_err(|e| format!("cannot mend the climb log {path}: {e}"))?;
            }
            climbs
        };
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot append to the climb log {path}: {e}"))?;
        let log = ClimbLog {
            path: path.to_string(),
            file: Mutex::new(file),
            error: Mutex::new(None),
        };
        Ok((log, climbs))
    }

    /// Appends one climb (a failure is kept for [`ClimbLog::finish`]: the
    /// pool itself goes on).
    pub fn record(&self, climb: &Climb) {
        let slider = Slider::ALL[climb.square / 64];
        let square = Square::new_masked(climb.square as u32 % 64);
        let magic = climb.magic.map_or("none".into(), |m| format!("0x{m:016x}"));
        let line = format!(
            "{} {square} {} {} {magic}\n",
            slider.name(),
            climb.bits,
            climb.index
        );
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(line.as_bytes()) {
            let mut error = self.error.lock().unwrap_or_else(|e| e.into_inner());
            error.get_or_insert(format!("cannot append to the climb log {}: {e}", self.path));
        }
    }

    /// The first write error, if any.
    pub fn finish(self) -> Option<String> {
        self.error.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// The climbs of a log's whole lines.
fn parse(path: &str, text: &str, header: &str) -> Result<Vec<Climb>, String> {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    if first != header {
        return Err(format!(
            "{path} is not the climb log of this run: it says `{first}`, this run is `{header}`"
        ));
    }
    let mut climbs: Vec<Climb> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for (n, line) in lines.enumerate() {
        let at = || format!("{path}:{}", n + 2);
        let climb = parse_line(line).map_err(|what| format!("{}: {what}: `{line}`", at()))?;
        let cell = (climb.square, climb.bits, climb.index);
        match seen.insert(cell, climb.magic) {
            Some(other) if other != climb.magic => {
                return Err(format!(
                    "{}: this climb is in the log twice, with two results",
                    at()
                ))
            }
            Some(_) => {}
            None => climbs.push(climb),
        }
    }
    Ok(climbs)
}

/// One climb line: `slider square width number magic|none`.
fn parse_line(line: &str) -> Result<Climb, &'static str> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [slider, square, bits, index, magic] = fields[..] else {
        return Err("expected slider, square, width, climb number and multiplier");
    };
    let slider = Slider::parse(slider).ok_or("no such slider")?;
    let square = Square::parse(square).ok_or("no such square")?;
    let bits = bits
        .parse()
        .ok()
        .filter(|b| (1..=16).contains(b))
        .ok_or("the width is not a number from 1 to 16")?;
    let index = index
        .parse()
        .map_err(|_| "the climb number is not a number")?;
    let magic = match magic {
        "none" => None,
        m => Some(
            m.strip_prefix("0x")
                .filter(|h| h.len() == 16)
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or("the multiplier is not 0x and 16 hex digits")?,
        ),
    };
    let square = if slider == Slider::Orthogonal { 0 } else { 64 } + square.index();
    Ok(Climb {
        square,
        bits,
        index,
        magic,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path of `name` in `dir`, a test's own directory (removed with it).
    fn temp(dir: &tempfile::TempDir, name: &str) -> String {
        dir.path().join(name).to_str().unwrap().to_string()
    }

    #[test]
    fn a_log_keeps_its_climbs_and_drops_a_line_cut_short() {
        let dir = tempfile::tempdir().unwrap();
        let path = temp(&dir, "keeps");
        let head = header(3, Indexing::Black, 100);
        let (log, climbs) = ClimbLog::open(&path, &head).unwrap();
        assert!(climbs.is_empty());
        let a = Climb {
            square: 127,
            bits: 9,
            index: 4,
            magic: Some(0x0123_4567_89ab_cdef),
        };
        let b = Climb {
            square: 0,
            bits: 12,
            index: 0,
            magic: None,
        };
        log.record(&a);
        log.record(&b);
        log.record(&b);
        assert_eq!(log.finish(), None);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("diagonal h8 9 4 0x0123456789abcdef\n"),
            "{text}"
        );
        // A kill mid-write leaves half a line.
        std::fs::write(&path, format!("{text}orthogonal b1 11 0 0x12")).unwrap();
        let (log, climbs) = ClimbLog::open(&path, &head).unwrap();
        assert_eq!(climbs, vec![a, b]);
        log.record(&Climb {
            square: 1,
            bits: 11,
            index: 0,
            magic: None,
        });
        drop(log);
        let (_, climbs) = ClimbLog::open(&path, &head).unwrap();
        assert_eq!(climbs.len(), 3);
    }

    #[test]
    fn a_log_of_another_run_or_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = temp(&dir, "refused");
        let head = header(3, Indexing::Black, 100);
        let refused = |text: &str| {
            std::fs::write(&path, text).unwrap();
            ClimbLog::open(&path, &head).err().expect("refused")
        };
        let other = format!("{}\n", header(4, Indexing::Black, 100));
        assert!(refused(&other).contains("not the climb log of this run"));
        let bad = |line: &str| refused(&format!("{head}\n{line}\n"));
        assert!(bad("orthogonal a1 12 0").contains(":2: expected"));
        assert!(bad("rook a1 12 0 none").contains("no such slider"));
        assert!(bad("orthogonal i9 12 0 none").contains("no such square"));
        assert!(bad("orthogonal a1 40 0 none").contains("width"));
        assert!(bad("orthogonal a1 12 x none").contains("climb number"));
        assert!(bad("orthogonal a1 12 0 0x12").contains("16 hex digits"));
        let twice = "orthogonal a1 12 0 none\northogonal a1 12 0 0x0000000000000001";
        assert!(bad(twice).contains(":3: this climb is in the log twice"));
        std::fs::write(&path, [0xff, 0xfe, b'\n']).unwrap();
        assert!(ClimbLog::open(&path, &head)
            .err()
            .unwrap()
            .contains("not text"));
    }
}
