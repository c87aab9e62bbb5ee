//! `magicgen export --lang rust|c`: the committed table as one
//! self-contained source file that any chess engine can drop in.
//!
//! Our orthogonal and diagonal masks are exactly chess's rook and bishop
//! relevant masks (rays without their edge square), and squares are
//! numbered a1 = 0, b1 = 1, …, h8 = 63 (bit `i` of a bitboard is square
//! `i`), so the table serves chess as it is. The file holds the magics (the
//! mask ORed in, the multiplier, the shift and the offset of each square's
//! block), the shared attack table and two lookup functions, each one OR,
//! one multiply, one shift and one load; nothing to initialise.

use yolah_geometry::magics::Indexing;
use yolah_geometry::{MagicSet, Slider, Square};

/// The languages an export is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// A Rust module: `rook_attacks` and `bishop_attacks`.
    Rust,
    /// A C header (C99): `rook_attacks` and `bishop_attacks`, `static inline`.
    C,
}

impl Lang {
    /// Parses `rust` or `c`.
    pub fn parse(text: &str) -> Result<Lang, String> {
        match text {
            "rust" => Ok(Lang::Rust),
            "c" => Ok(Lang::C),
            _ => Err(format!("{text:?} is not a language: rust or c")),
        }
    }
}

/// One square's magic as the lookup reads it.
struct Row {
    /// What the occupancy is ORed with: every square off the relevant mask.
    or_mask: u64,
    magic: u64,
    shift: u32,
    offset: i64,
}

/// The rows of one slider, a1 to h8.
fn rows(set: &MagicSet, slider: Slider) -> Vec<Row> {
    Square::all()
        .map(|sq| {
            let e = set.entry(slider, sq);
            Row {
                or_mask: !e.mask().0,
                magic: e.magic,
                shift: 64 - e.bits,
                offset: e.offset,
            }
        })
        .collect()
}

/// The export of `set` (a black, verified set) in `lang`.
pub fn export(set: &MagicSet, lang: Lang) -> Result<String, String> {
    if set.indexing != Indexing::Black {
        return Err("the export is written for black magics (occupied | mask)".into());
    }
    let table = set.attack_table().map_err(|e| e.to_string())?;
    let about = format!(
        "Rook and bishop attacks by black magic bitboards: one shared table of\n\
         {} entries ({} bytes), exported by yolah's magicgen from magicgen/magics.txt{}.\n\
         Squares a1 = 0, b1 = 1, ..., h8 = 63; bit i of a bitboard is square i.\n\
         slot = offset + (((occupied | mask) * magic) >> shift), where mask holds\n\
         every square off the piece's relevant rays; offsets may be negative, the\n\
         slot never is. No dependencies and nothing to initialise.",
        table.len(),
        table.len() * 8,
        set.command
            .as_ref()
            .map_or(String::new(), |c| format!("\n(found by `{c}`)"))
    );
    let (rook, bishop) = (rows(set, Slider::Orthogonal), rows(set, Slider::Diagonal));
    Ok(match lang {
        Lang::Rust => rust(&about, &rook, &bishop, &table),
        Lang::C => c(&about, &rook, &bishop, &table),
    })
}

/// The attack table, eight hex words to a line, each line indented by
/// `indent` and each word followed by `,`.
fn words(table: &[u64], indent: &str, suffix: &str) -> String {
    table
        .chunks(8)
        .map(|line| {
            let line: Vec<String> = line
                .iter()
                .map(|v| format!("0x{v:016x}{suffix},"))
                .collect();
            format!("{indent}{}\n", line.join(" "))
        })
        .collect()
}

fn rust(about: &str, rook: &[Row], bishop: &[Row], table: &[u64]) -> String {
    let magics = |rows: &[Row]| -> String {
        rows.iter()
            .map(|r| {
                format!(
                    "    Magic {{ mask: 0x{:016x}, magic: 0x{:016x}, shift: {}, offset: {} }},\n",
                    r.or_mask, r.magic, r.shift, r.offset
                )
            })
            .collect()
    };
    let mut out = String::new();
    for line in about.lines() {
        out.push_str(&format!("//! {line}\n"));
    }
    out.push_str(&format!(
        r#"
/// One square's magic.
struct Magic {{
    /// Every square off the piece's relevant rays: ORed into the occupancy.
    mask: u64,
    /// The multiplier.
    magic: u64,
    /// 64 minus the index bits.
    shift: u32,
    /// Where the square's slot 0 is in `ATTACKS`.
    offset: isize,
}}

impl Magic {{
    #[inline(always)]
    fn attacks(&self, occupied: u64) -> u64 {{
        let index = (occupied | self.mask).wrapping_mul(self.magic) >> self.shift;
        ATTACKS[self.offset.wrapping_add(index as isize) as usize]
    }}
}}

/// The squares a rook on `square` (0 = a1 … 63 = h8) attacks when
/// `occupied` holds the blockers: each ray up to and including its first
/// blocker.
#[inline]
pub fn rook_attacks(square: usize, occupied: u64) -> u64 {{
    ROOK[square].attacks(occupied)
}}

/// The squares a bishop on `square` attacks, as [`rook_attacks`].
#[inline]
pub fn bishop_attacks(square: usize, occupied: u64) -> u64 {{
    BISHOP[square].attacks(occupied)
}}

#[rustfmt::skip]
static ROOK: [Magic; 64] = [
{}];

#[rustfmt::skip]
static BISHOP: [Magic; 64] = [
{}];

#[rustfmt::skip]
static ATTACKS: [u64; {}] = [
{}];
"#,
        magics(rook),
        magics(bishop),
        table.len(),
        words(table, "    ", "")
    ));
    out
}

fn c(about: &str, rook: &[Row], bishop: &[Row], table: &[u64]) -> String {
    let magics = |rows: &[Row]| -> String {
        rows.iter()
            .map(|r| {
                format!(
                    "    {{ 0x{:016x}ULL, 0x{:016x}ULL, {}, {} }},\n",
                    r.or_mask, r.magic, r.shift, r.offset
                )
            })
            .collect()
    };
    let mut out = String::from("/*\n");
    for line in about.lines() {
        out.push_str(&format!(" * {line}\n"));
    }
    out.push_str(&format!(
        r#" */
#ifndef YOLAH_MAGIC_ATTACKS_H
#define YOLAH_MAGIC_ATTACKS_H

#include <stdint.h>

/* One square's magic: the squares ORed into the occupancy, the
 * multiplier, 64 minus the index bits, and where slot 0 is in the table. */
typedef struct {{
    uint64_t mask;
    uint64_t magic;
    unsigned shift;
    int64_t offset;
}} magic_attacks_entry;

static const magic_attacks_entry MAGIC_ATTACKS_ROOK[64] = {{
{}}};

static const magic_attacks_entry MAGIC_ATTACKS_BISHOP[64] = {{
{}}};

static const uint64_t MAGIC_ATTACKS_TABLE[{}] = {{
{}}};

static inline uint64_t magic_attacks_lookup(const magic_attacks_entry *m, uint64_t occupied)
{{
    uint64_t index = ((occupied | m->mask) * m->magic) >> m->shift;
    return MAGIC_ATTACKS_TABLE[m->offset + (int64_t)index];
}}

/* The squares a rook on square (0 = a1 ... 63 = h8) attacks when occupied
 * holds the blockers: each ray up to and including its first blocker. */
static inline uint64_t rook_attacks(int square, uint64_t occupied)
{{
    return magic_attacks_lookup(&MAGIC_ATTACKS_ROOK[square], occupied);
}}

/* The squares a bishop on square attacks, as rook_attacks. */
static inline uint64_t bishop_attacks(int square, uint64_t occupied)
{{
    return magic_attacks_lookup(&MAGIC_ATTACKS_BISHOP[square], occupied);
}}

#endif
"#,
        magics(rook),
        magics(bishop),
        table.len(),
        words(table, "    ", "ULL")
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::process::Command;
    use yolah_geometry::rays::{relevant_mask, slider_attacks_slow, subsets};
    use yolah_geometry::Bitboard;

    /// Squares off the relevant mask (`or_mask`) that the harness adds to
    /// occupancy `o` of square `sq`: the lookup must ignore them. The same
    /// formula is written in both harnesses below.
    fn noise(sq: u64, o: u64, or_mask: u64) -> u64 {
        ((o ^ sq).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ sq << 32) & or_mask
    }

    /// What both harnesses print: for the rook then the bishop, on every
    /// square, a hash of the attacks of every subset of the relevant mask
    /// (with noise off the mask), computed here by ray casting.
    fn expected() -> String {
        let mut out = String::new();
        for slider in Slider::ALL {
            for sq in Square::all() {
                let mask = relevant_mask(slider, sq);
                let mut hash = 0u64;
                for o in subsets(mask) {
                    let occupied = o.0 | noise(sq.index() as u64, o.0, !mask.0);
                    let attacks = slider_attacks_slow(slider, sq, Bitboard(occupied)).0;
                    hash = (hash ^ attacks).wrapping_mul(0x0000_0100_0000_01b3);
                }
                out.push_str(&format!("{} {hash}\n", sq.index()));
            }
        }
        out
    }

    /// A fresh directory for one test's files, removed when it drops.
    fn scratch_dir() -> tempfile::TempDir {
        tempfile::tempdir().expect("a temporary directory")
    }

    /// Runs `program` with `args`, and then the binary it built, and returns
    /// what the binary printed.
    fn build_and_run(program: &str, args: &[&str], binary: &Path) -> String {
        let built = Command::new(program)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        assert!(
            built.status.success(),
            "{program} failed: {}",
            String::from_utf8_lossy(&built.stderr)
        );
        let ran = Command::new(binary).output().expect("the harness runs");
        assert!(ran.status.success(), "the harness failed");
        String::from_utf8(ran.stdout).expect("text")
    }

    fn committed() -> MagicSet {
        MagicSet::committed().expect("the committed constants parse")
    }

    #[test]
    fn the_rust_export_matches_ray_casting() {
        let dir = scratch_dir();
        let source = dir.path().join("attacks.rs");
        let mut text = export(&committed(), Lang::Rust).unwrap();
        text.push_str(
            r#"
fn main() {
    for (table, attacks) in [(&ROOK, rook_attacks as fn(usize, u64) -> u64), (&BISHOP, bishop_attacks)] {
        for sq in 0..64usize {
            let (or_mask, rel) = (table[sq].mask, !table[sq].mask);
            let (mut o, mut hash) = (0u64, 0u64);
            loop {
                let noise = ((o ^ sq as u64).wrapping_mul(0x9e3779b97f4a7c15) ^ (sq as u64) << 32) & or_mask;
                hash = (hash ^ attacks(sq, o | noise)).wrapping_mul(0x100000001b3);
                o = o.wrapping_sub(rel) & rel;
                if o == 0 { break; }
            }
            println!("{sq} {hash}");
        }
    }
}
"#,
        );
        std::fs::write(&source, text).unwrap();
        let binary = dir.path().join("attacks");
        let args = ["--edition", "2021", "-O", "-o"];
        let args: Vec<&str> = args
            .into_iter()
            .chain([binary.to_str().unwrap(), source.to_str().unwrap()])
            .collect();
        assert_eq!(build_and_run("rustc", &args, &binary), expected());
    }

    #[test]
    fn the_c_export_matches_ray_casting() {
        let dir = scratch_dir();
        std::fs::write(
            dir.path().join("attacks.h"),
            export(&committed(), Lang::C).unwrap(),
        )
        .unwrap();
        let harness = dir.path().join("harness.c");
        std::fs::write(
            &harness,
            r#"#include <stdio.h>
#include "attacks.h"
int main(void)
{
    for (int piece = 0; piece < 2; piece++) {
        const magic_attacks_entry *table = piece == 0 ? MAGIC_ATTACKS_ROOK : MAGIC_ATTACKS_BISHOP;
        for (int sq = 0; sq < 64; sq++) {
            uint64_t or_mask = table[sq].mask, rel = ~table[sq].mask, o = 0, hash = 0;
            do {
                uint64_t noise = (((o ^ (uint64_t)sq) * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)sq << 32)) & or_mask;
                uint64_t a = piece == 0 ? rook_attacks(sq, o | noise) : bishop_attacks(sq, o | noise);
                hash = (hash ^ a) * 0x100000001b3ULL;
                o = (o - rel) & rel;
            } while (o != 0);
            printf("%d %llu\n", sq, (unsigned long long)hash);
        }
    }
    return 0;
}
"#,
        )
        .unwrap();
        let binary = dir.path().join("harness");
        let args = [
            "-std=c99",
            "-O1",
            "-o",
            binary.to_str().unwrap(),
            harness.to_str().unwrap(),
        ];
        assert_eq!(build_and_run("cc", &args, &binary), expected());
    }

    #[test]
    fn a_language_is_rust_or_c() {
        assert_eq!(Lang::parse("rust"), Ok(Lang::Rust));
        assert_eq!(Lang::parse("c"), Ok(Lang::C));
        assert!(Lang::parse("go").unwrap_err().contains("\"go\""));
    }
}
