//! `magicgen --report`: the layout of a constants file.

use std::io::Write;
use yolah_geometry::rays::{relevant_mask, slider_attacks_slow, subsets};
use yolah_geometry::{MagicEntry, MagicSet, Slider, Square};

/// A category of published tables: one table shared by rooks and bishops,
/// one OR or AND, one multiply, one shift and one load per lookup, over
/// chess's rook and bishop masks (exactly our orthogonal and diagonal
/// masks). `docs/magic-tables.md` gives the same table with its sources.
struct Category {
    /// The kind of magics and layout.
    what: &'static str,
    /// Its published sizes, oldest first; the last is its record.
    sizes: &'static [usize],
    /// Where the record can be checked.
    source: &'static str,
}

/// The published categories, largest record first.
const PUBLISHED: [Category; 4] = [
    Category {
        what: "variable shift, private blocks (the book, Stockfish, PEXT)",
        sizes: &[107_648],
        source: "Stockfish src/bitboard.cpp",
    },
    Category {
        what: "fixed shift 12/9, white, overlapping (Annuss)",
        sizes: &[97_264, 89_524, 88_772],
        source: "Cfish src/magic-plain.c; shakmaty src/magics.rs",
    },
    Category {
        what: "fixed shift 12/9, black, overlapping (Annuss, Fiekas)",
        sizes: &[88_507, 87_988],
        source: "Cfish src/magic-black.c",
    },
    Category {
        what: "variable shift, black, overlapping, signed offsets (Sp00ph)",
        sizes: &[87_038, 77_519, 76_411],
        source: "icarus icarus-board/build.rs and Reckless build/magics.rs (77,519); \
                 Sp00ph's compact variable shift black magics (76,411)",
    },
];

/// The least any table can have: for every square and slider, the number
/// of distinct attack sets (a table needs a slot for each).
fn lower_bound() -> (usize, usize) {
    let count = |slider: Slider| -> usize {
        Square::all()
            .map(|sq| {
                let mut sets: Vec<u64> = subsets(relevant_mask(slider, sq))
                    .map(|o| slider_attacks_slow(slider, sq, o).0)
                    .collect();
                sets.sort_unstable();
                sets.dedup();
                sets.len()
            })
            .sum()
    };
    (count(Slider::Orthogonal), count(Slider::Diagonal))
}

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
    let narrow: Vec<String> = set
        .entries
        .iter()
        .filter(|e| e.bits < e.mask().count())
        .map(|e| {
            format!(
                "{} {} ({} of {})",
                e.slider.name(),
                e.square,
                e.bits,
                e.mask().count()
            )
        })
        .collect();
    writeln!(
        out,
        "fewer index bits than the mask: {}",
        if narrow.is_empty() {
            "none".to_string()
        } else {
            format!("{} squares: {}", narrow.len(), narrow.join(", "))
        }
    )?;
    writeln!(
        out,
        "\npublished tables (one table for rooks and bishops, one lookup each), by category:"
    )?;
    let len = table.len() as i64;
    for c in PUBLISHED {
        let record = *c.sizes.last().expect("a category has a size") as i64;
        let sizes: Vec<String> = c.sizes.iter().map(|&s| thousands(s)).collect();
        writeln!(
            out,
            "  {:>7}  {}: ours {:+} ({:+.1}%)\n           sizes {}; {}",
            thousands(record as usize),
            c.what,
            len - record,
            100.0 * (len - record) as f64 / record as f64,
            sizes.join(" -> "),
            c.source
        )?;
    }
    let (rook, bishop) = lower_bound();
    writeln!(
        out,
        "  {:>7}  lower bound: distinct attack sets (rook {} + bishop {}), counted here",
        thousands(rook + bishop),
        thousands(rook),
        thousands(bishop)
    )?;
    Ok(())
}

/// `n` with a comma every three digits.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lower_bound_counts_distinct_attack_sets() {
        assert_eq!(lower_bound(), (4_900, 1_428));
    }

    #[test]
    fn records_are_the_last_sizes_and_thousands_have_commas() {
        assert_eq!(thousands(76_411), "76,411");
        assert_eq!(thousands(107_648), "107,648");
        assert_eq!(thousands(999), "999");
        for c in PUBLISHED {
            assert!(c.sizes.windows(2).all(|w| w[0] > w[1]), "{}", c.what);
        }
    }
}
