//! `magicgen --report`: the layout of a constants file.

use std::io::Write;
use yolah_geometry::rays::subsets;
use yolah_geometry::{MagicEntry, MagicSet};

/// Published sizes of one table shared by both sliders.
const PUBLISHED: [(usize, &str); 3] = [
    (
        107_648,
        "variable-shift fancy magics, blocks end to end (the book, Stockfish)",
    ),
    (97_264, "fixed-shift fancy magics, overlapping blocks"),
    (
        87_988,
        "fixed-shift black magics, overlapping blocks (smallest published)",
    ),
];

/// Prints the report of the constants file at `path`. A closed stdout (the
/// report piped into `head`) ends it quietly.
pub fn print(path: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let set = MagicSet::parse(&text).map_err(|e| format!("{path}: {e}"))?;
    let table = set.attack_table().map_err(|e| format!("{path}: {e}"))?;
    let mut out = std::io::stdout().lock();
    match write_report(&mut out, path, &set, &table) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write the report: {e}")),
        Ok(()) => Ok(()),
    }
}

/// Where one magic's block lies in its window of `2^bits` local slots.
struct Block {
    /// The local index of its first used slot.
    first: u32,
    /// Slots from the first used one to the last.
    span: u32,
    /// Slots it uses.
    used: u32,
}

impl Block {
    fn of(set: &MagicSet, e: &MagicEntry) -> Block {
        let mut slots: Vec<u32> = subsets(e.mask())
            .map(|occupied| e.local_index(set.indexing, occupied) as u32)
            .collect();
        slots.sort_unstable();
        slots.dedup();
        let (first, last) = (slots[0], slots[slots.len() - 1]);
        Block {
            first,
            span: last - first + 1,
            used: slots.len() as u32,
        }
    }
}

/// The report proper: a line per square, then the table's totals.
fn write_report(
    out: &mut impl Write,
    path: &str,
    set: &MagicSet,
    table: &[u64],
) -> std::io::Result<()> {
    writeln!(out, "{path}: {} magics", set.indexing.name())?;
    writeln!(
        out,
        "slider     square mask bits shift offset      first   span   used"
    )?;
    for e in &set.entries {
        let block = Block::of(set, e);
        writeln!(
            out,
            "{:<10} {}     {:>4} {:>4} {:>5} {:>7} {:>9} {:>6} {:>6}",
            e.slider.name(),
            e.square,
            e.mask().count(),
            e.bits,
            64 - e.bits,
            e.offset,
            e.offset + i64::from(block.first),
            block.span,
            block.used
        )?;
    }
    let used = table.iter().filter(|&&v| v != 0).count();
    writeln!(
        out,
        "\ntable: {} entries ({} bytes): {used} used, {} unused ({:.1}% full)",
        table.len(),
        table.len() * 8,
        table.len() - used,
        100.0 * used as f64 / table.len().max(1) as f64
    )?;
    for (size, what) in PUBLISHED {
        let diff = table.len() as i64 - size as i64;
        writeln!(
            out,
            "  {size:>7} {what}: {diff:+} ({:+.1}%)",
            100.0 * diff as f64 / size as f64
        )?;
    }
    Ok(())
}
