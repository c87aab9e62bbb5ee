//! The magic constants: their model, the committed text file, and the attack
//! table they describe.
//!
//! A magic for a slider on a square hashes the blockers on its relevant mask
//! into a slot of one shared attack table, in one of two ways:
//!
//! ```text
//! white: slot = offset + ((occupied &  mask) * magic) >> (64 - bits)
//! black: slot = offset + ((occupied | !mask) * magic) >> (64 - bits)
//! ```
//!
//! "Black" magics hash the complemented mask: the squares off the mask are
//! all set, which adds a constant to the product and lets a search choose
//! where in its range a square's slots fall. Slots of different squares may
//! overlap where they hold the same attacks or where one of them is unused,
//! which is how the table shrinks below the 107,648 entries of one private
//! block per square; the offset may be negative when a block's first used
//! slot is past its start.

use crate::rays::{relevant_mask, slider_attacks_slow, subsets, Slider};
use crate::types::{Bitboard, Square};
use core::fmt;

/// The committed constants file, read by the `yolah` build script.
pub const COMMITTED: &str = include_str!("../../magics.txt");

/// How a magic reads the occupancy: `occupied & mask` (white) or
/// `occupied | !mask` (black). One set uses one of them, so the runtime's
/// lookup is one operation, one multiply, one shift and one load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Indexing {
    /// `(occupied & mask) * magic`.
    #[default]
    White,
    /// `(occupied | !mask) * magic`.
    Black,
}

impl Indexing {
    /// The word the magic multiplies: the occupancy read through `mask`.
    #[inline(always)]
    pub const fn key(self, mask: Bitboard, occupied: Bitboard) -> u64 {
        match self {
            Indexing::White => occupied.0 & mask.0,
            Indexing::Black => occupied.0 | !mask.0,
        }
    }

    /// The name in the constants file.
    pub const fn name(self) -> &'static str {
        match self {
            Indexing::White => "white",
            Indexing::Black => "black",
        }
    }
}

/// The magic of one slider on one square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MagicEntry {
    /// Orthogonal or diagonal rays.
    pub slider: Slider,
    /// The square the slider stands on.
    pub square: Square,
    /// Index bits: the entry owns `2^bits` slots from `offset`.
    pub bits: u32,
    /// The multiplier.
    pub magic: u64,
    /// Where this entry's local slot 0 is in the shared attack table
    /// (negative when its first used slot comes later).
    pub offset: i64,
}

impl MagicEntry {
    /// The relevant-occupancy mask of this entry.
    pub fn mask(&self) -> Bitboard {
        relevant_mask(self.slider, self.square)
    }

    /// The slot of `occupied` relative to `offset`.
    pub fn local_index(&self, indexing: Indexing, occupied: Bitboard) -> usize {
        local_index(indexing, self.mask(), self.magic, self.bits, occupied)
    }
}

/// `(key * magic) >> (64 - bits)`, the key being the occupancy read through
/// the mask as `indexing` says: the magic hash.
#[inline(always)]
pub fn local_index(
    indexing: Indexing,
    mask: Bitboard,
    magic: u64,
    bits: u32,
    occupied: Bitboard,
) -> usize {
    (indexing.key(mask, occupied).wrapping_mul(magic) >> (64 - bits)) as usize
}

/// All 128 magics (orthogonal a1…h8, then diagonal a1…h8) and the length of
/// the attack table they share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MagicSet {
    /// The generator seed that produced the set, when known.
    pub seed: Option<u64>,
    /// The magicgen command that produced the set, when known: running it
    /// again writes the same file byte for byte.
    pub command: Option<String>,
    /// How every magic of the set reads the occupancy.
    pub indexing: Indexing,
    /// The magics, orthogonal squares a1…h8 then diagonal a1…h8.
    pub entries: Vec<MagicEntry>,
    /// The number of `u64` slots of the shared attack table.
    pub table_len: usize,
}

/// Why a constants file or a magic set is not usable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MagicError {
    /// 1-based line of the constants file, when the error has one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for MagicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for MagicError {}

fn err(line: Option<usize>, message: impl Into<String>) -> MagicError {
    MagicError {
        line,
        message: message.into(),
    }
}

impl MagicSet {
    /// The magic of `slider` on `square`.
    pub fn entry(&self, slider: Slider, square: Square) -> &MagicEntry {
        let base = match slider {
            Slider::Orthogonal => 0,
            Slider::Diagonal => 64,
        };
        &self.entries[base + square.index()]
    }

    /// Parses the constants file format written by [`MagicSet::to_text`].
    ///
    /// Lines are `SLIDER SQUARE BITS MAGIC OFFSET` plus one `table_len N`
    /// and, for black magics, `indexing black`; `#` starts a comment
    /// (`# seed 0x…` records the seed, `# command: …` the magicgen command
    /// that produced the set).
    pub fn parse(text: &str) -> Result<MagicSet, MagicError> {
        let mut seed = None;
        let mut command = None;
        let mut indexing = Indexing::White;
        let mut table_len = None;
        let mut entries: Vec<Option<MagicEntry>> = vec![None; 128];
        for (i, raw) in text.lines().enumerate() {
            let line = Some(i + 1);
            if let Some(comment) = raw.trim().strip_prefix('#') {
                if let Some(s) = comment.trim().strip_prefix("seed ") {
                    seed = Some(parse_u64(s.trim()).ok_or_else(|| err(line, "bad seed"))?);
                }
                if let Some(c) = comment.trim().strip_prefix("command: ") {
                    command = Some(c.trim().to_string());
                }
                continue;
            }
            let fields: Vec<&str> = raw.split_whitespace().collect();
            match fields.as_slice() {
                [] => {}
                ["indexing", "white"] => indexing = Indexing::White,
                ["indexing", "black"] => indexing = Indexing::Black,
                ["indexing", other] => {
                    return Err(err(
                        line,
                        format!("unknown indexing {other:?} (white or black)"),
                    ))
                }
                ["table_len", n] => {
                    table_len = Some(n.parse().map_err(|_| err(line, "bad table_len"))?);
                }
                [slider, square, bits, magic, offset] => {
                    let slider = Slider::parse(slider)
                        .ok_or_else(|| err(line, format!("unknown slider {slider:?}")))?;
                    let square = Square::parse(square)
                        .ok_or_else(|| err(line, format!("bad square {square:?}")))?;
                    let bits = bits
                        .parse()
                        .ok()
                        .filter(|b| (1..=32).contains(b))
                        .ok_or_else(|| err(line, format!("bad bit count {bits:?}")))?;
                    let magic = parse_u64(magic)
                        .ok_or_else(|| err(line, format!("bad magic {magic:?}")))?;
                    let offset = offset
                        .parse()
                        .map_err(|_| err(line, format!("bad offset {offset:?}")))?;
                    let slot = &mut entries[slider as usize * 64 + square.index()];
                    if slot.is_some() {
                        return Err(err(line, format!("{} {square} given twice", slider.name())));
                    }
                    *slot = Some(MagicEntry {
                        slider,
                        square,
                        bits,
                        magic,
                        offset,
                    });
                }
                _ => return Err(err(line, format!("cannot read {raw:?}"))),
            }
        }
        let table_len = table_len.ok_or_else(|| err(None, "no table_len line"))?;
        let entries = entries
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                e.ok_or_else(|| {
                    let slider = Slider::ALL[i / 64].name();
                    let sq = Square::new(i as u8 % 64).expect("index below 64");
                    err(None, format!("no magic for {slider} {sq}"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MagicSet {
            seed,
            command,
            indexing,
            entries,
            table_len,
        })
    }

    /// The committed constants, parsed.
    pub fn committed() -> Result<MagicSet, MagicError> {
        MagicSet::parse(COMMITTED)
    }

    /// Writes the constants file. The output depends only on the set, so a
    /// deterministic search rewrites the file byte for byte.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        out.push_str(
            "# Yolah magic multipliers, written by `cargo run -p magicgen`; do not edit.\n",
        );
        out.push_str(match self.indexing {
            Indexing::White => "# slot = offset + (((occupied & mask) * magic) >> (64 - bits))\n",
            Indexing::Black => "# slot = offset + (((occupied | !mask) * magic) >> (64 - bits))\n",
        });
        if let Some(seed) = self.seed {
            out.push_str(&format!("# seed 0x{seed:016x}\n"));
        }
        if let Some(command) = &self.command {
            out.push_str(&format!("# command: {command}\n"));
        }
        out.push_str(&format!(
            "# {} table entries, {} bytes\n",
            self.table_len,
            self.table_len * 8
        ));
        out.push_str("# slider     square bits magic              offset\n");
        for e in &self.entries {
            out.push_str(&format!(
                "{:<12} {}     {:>2}   0x{:016x} {}\n",
                e.slider.name(),
                e.square,
                e.bits,
                e.magic,
                e.offset
            ));
        }
        if self.indexing == Indexing::Black {
            out.push_str("indexing black\n");
        }
        out.push_str(&format!("table_len {}\n", self.table_len));
        out
    }

    /// Fills the shared attack table and checks every magic on the way: each
    /// subset of each mask must land in a slot that holds its attacks and
    /// nothing else (unused slots stay 0; no attack set is empty).
    pub fn attack_table(&self) -> Result<Vec<u64>, MagicError> {
        if self.entries.len() != 128 {
            return Err(err(None, "a magic set has 128 entries"));
        }
        let mut table = vec![0u64; self.table_len];
        for e in &self.entries {
            for occupied in subsets(e.mask()) {
                let attacks = slider_attacks_slow(e.slider, e.square, occupied).0;
                let index = e.offset + e.local_index(self.indexing, occupied) as i64;
                let slot = usize::try_from(index)
                    .ok()
                    .and_then(|i| table.get_mut(i))
                    .ok_or_else(|| {
                        err(
                            None,
                            format!("{} {} runs outside the table", e.slider.name(), e.square),
                        )
                    })?;
                if *slot != 0 && *slot != attacks {
                    return Err(err(
                        None,
                        format!(
                            "{} {} magic 0x{:016x} collides for occupancy 0x{:016x}",
                            e.slider.name(),
                            e.square,
                            e.magic,
                            occupied.0
                        ),
                    ));
                }
                *slot = attacks;
            }
        }
        Ok(table)
    }
}

fn parse_u64(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_file_is_valid_and_round_trips() {
        let set = MagicSet::committed().expect("committed magics parse");
        assert_eq!(set.to_text(), COMMITTED);
        set.attack_table()
            .expect("committed magics are collision free");
    }

    #[test]
    fn parse_errors_name_the_line() {
        let mut text = MagicSet::committed().unwrap().to_text();
        text = text.replacen("orthogonal   a1", "orthogonal   z9", 1);
        let e = MagicSet::parse(&text).unwrap_err();
        assert!(e.line.is_some(), "{e}");
        assert!(e.to_string().contains("bad square"), "{e}");
        assert!(MagicSet::parse("").is_err());
    }

    #[test]
    fn a_broken_magic_is_caught() {
        let mut set = MagicSet::committed().unwrap();
        set.entries[27].magic = 0;
        assert!(set.attack_table().is_err());
    }
}
