//! Positions written into rows of preallocated NumPy arrays, in the compact
//! forms of `yolah.vector` and `yolah.search`: what each form is, and the
//! writers. The planes and scores are `yolah_players::az::encoding`'s (the
//! one definition the `az` network also reads).
//!
//! * planes: `uint8 (PLANES, 8, 8)`, 0 or 1 (256 bytes; float32 would be a
//!   kilobyte of the same bits);
//! * scores: `uint8 (2,)`, the side to move's points and the opponent's;
//! * reach: `uint8 (2, 8, 8)`, 0 or 1: the squares the side to move's
//!   pieces can move to, and the opponent's;
//! * packed mask: `uint8 (512,)`, the 4,096 legal-action bits, little-endian
//!   within each byte, so `np.unpackbits(mask, axis=-1, bitorder="little")`
//!   is the `(4096,)` mask. Byte `8 * from + to / 8` holds the moves from
//!   `from`: the eight bytes of a square are its queen targets' bitboard;
//! * bool mask: `bool (4096,)`, the same as `Position.action_mask()`;
//! * legal actions: `int16 (MAX_MOVES,)`, the legal actions in increasing
//!   order, then `-1`s; with their count as a `uint8`.

use yolah::attacks::queen_moves;
use yolah::{Position, MAX_MOVES};
use yolah_players::az::encoding::{planes, reach, scores, ACTIONS, PLANES, REACH_PLANES};

/// Bytes of a packed mask.
pub const PACKED_MASK_BYTES: usize = ACTIONS / 8;

/// Byte `j` of `EXPAND[b]` is bit `j` of `b`: eight plane cells at once.
const EXPAND: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            if b >> j & 1 == 1 {
                table[b] |= 1 << (8 * j);
            }
            j += 1;
        }
        b += 1;
    }
    table
};

/// Writes the planes of `pos` as 0/1 bytes (`PLANES * 64`).
#[inline]
pub fn write_planes_u8(pos: &Position, out: &mut [u8]) {
    for (plane, bits) in out.chunks_exact_mut(64).zip(planes(pos)) {
        for (cells, byte) in plane.chunks_exact_mut(8).zip(bits.to_le_bytes()) {
            cells.copy_from_slice(&EXPAND[usize::from(byte)].to_le_bytes());
        }
    }
}

/// Writes the reach planes of `pos` as 0/1 bytes (`REACH_PLANES * 64`).
#[inline]
pub fn write_reach_u8(pos: &Position, out: &mut [u8]) {
    for (plane, bits) in out.chunks_exact_mut(64).zip(reach(&planes(pos))) {
        for (cells, byte) in plane.chunks_exact_mut(8).zip(bits.to_le_bytes()) {
            cells.copy_from_slice(&EXPAND[usize::from(byte)].to_le_bytes());
        }
    }
}

/// [`write_planes_u8`] bit by bit (the reference, for tests).
#[cfg(test)]
pub fn write_planes_u8_slow(pos: &Position, out: &mut [u8]) {
    for (p, bits) in planes(pos).iter().enumerate() {
        for sq in 0..64 {
            out[p * 64 + sq] = (bits >> sq & 1) as u8;
        }
    }
}

/// Writes the side to move's and the opponent's points (2 bytes).
#[inline]
pub fn write_scores(pos: &Position, out: &mut [u8]) {
    out.copy_from_slice(&scores(pos));
}

/// The legal moves of `pos` as 64 words, word `from` the squares a piece
/// on `from` can reach; the pass is bit 0 of word 0. All zero at the end.
#[inline]
fn targets(pos: &Position) -> [u64; 64] {
    let mut words = [0u64; 64];
    if pos.is_game_over() {
        return words;
    }
    let blockers = pos.blockers();
    let mut any = false;
    for from in pos.pieces(pos.side_to_move()) {
        let to = queen_moves(from, blockers).0;
        words[from.index()] = to;
        any |= to != 0;
    }
    if !any {
        words[0] = 1;
    }
    words
}

/// Writes the packed legal-action mask ([`PACKED_MASK_BYTES`]).
#[inline]
pub fn write_packed_mask(pos: &Position, out: &mut [u8]) {
    for (bytes, word) in out.chunks_exact_mut(8).zip(targets(pos)) {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
}

/// Writes the `ACTIONS` bools of the legal-action mask.
#[inline]
pub fn write_bool_mask(pos: &Position, out: &mut [bool]) {
    out.fill(false);
    for_each_action(pos, |a| out[a] = true);
}

/// Writes the legal actions in increasing order then `-1`s (`MAX_MOVES`)
/// and returns how many there are.
#[inline]
pub fn write_legal_actions(pos: &Position, out: &mut [i16]) -> u8 {
    let mut n = 0;
    for_each_action(pos, |a| {
        out[n] = a as i16;
        n += 1;
    });
    out[n..MAX_MOVES].fill(-1);
    n as u8
}

/// Calls `f` with each legal action of `pos`, in increasing order.
#[inline]
fn for_each_action(pos: &Position, mut f: impl FnMut(usize)) {
    for (from, word) in targets(pos).into_iter().enumerate() {
        for to in yolah::Bitboard(word) {
            f(from * 64 + to.index());
        }
    }
}

/// Which forms a batch of rows holds, and their row sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forms {
    /// Planes and scores.
    pub observation: bool,
    /// The reach planes.
    pub reach: bool,
    /// The packed mask.
    pub packed_mask: bool,
    /// The bool mask.
    pub bool_mask: bool,
    /// The legal actions and their count.
    pub legal_actions: bool,
}

/// Mutable rows of the arrays of [`Forms`], for a range of games.
#[derive(Default)]
pub struct Rows<'a> {
    /// `PLANES * 64` bytes a row.
    pub planes: Option<&'a mut [u8]>,
    /// 2 bytes a row.
    pub scores: Option<&'a mut [u8]>,
    /// `REACH_PLANES * 64` bytes a row.
    pub reach: Option<&'a mut [u8]>,
    /// [`PACKED_MASK_BYTES`] a row.
    pub packed_mask: Option<&'a mut [u8]>,
    /// `ACTIONS` a row.
    pub bool_mask: Option<&'a mut [bool]>,
    /// `MAX_MOVES` a row.
    pub legal_actions: Option<&'a mut [i16]>,
    /// 1 a row.
    pub legal_count: Option<&'a mut [u8]>,
}

fn split<T>(s: Option<&mut [T]>, at: usize) -> (Option<&mut [T]>, Option<&mut [T]>) {
    match s {
        Some(s) => {
            let (a, b) = s.split_at_mut(at);
            (Some(a), Some(b))
        }
        None => (None, None),
    }
}

fn row<'s, T>(s: &'s mut Option<&mut [T]>, i: usize, width: usize) -> Option<&'s mut [T]> {
    s.as_deref_mut().map(|s| &mut s[i * width..(i + 1) * width])
}

impl<'a> Rows<'a> {
    /// The first `n` rows and the rest.
    pub fn split_at(self, n: usize) -> (Rows<'a>, Rows<'a>) {
        let (planes, planes2) = split(self.planes, n * PLANES * 64);
        let (scores, scores2) = split(self.scores, n * 2);
        let (reach, reach2) = split(self.reach, n * REACH_PLANES * 64);
        let (packed_mask, packed2) = split(self.packed_mask, n * PACKED_MASK_BYTES);
        let (bool_mask, bool2) = split(self.bool_mask, n * ACTIONS);
        let (legal_actions, legal2) = split(self.legal_actions, n * MAX_MOVES);
        let (legal_count, count2) = split(self.legal_count, n);
        (
            Rows {
                planes,
                scores,
                reach,
                packed_mask,
                bool_mask,
                legal_actions,
                legal_count,
            },
            Rows {
                planes: planes2,
                scores: scores2,
                reach: reach2,
                packed_mask: packed2,
                bool_mask: bool2,
                legal_actions: legal2,
                legal_count: count2,
            },
        )
    }

    /// Writes `pos` into row `i` of every form present.
    #[inline]
    pub fn write(&mut self, i: usize, pos: &Position) {
        if let Some(out) = row(&mut self.planes, i, PLANES * 64) {
            write_planes_u8(pos, out);
        }
        if let Some(out) = row(&mut self.scores, i, 2) {
            write_scores(pos, out);
        }
        if let Some(out) = row(&mut self.reach, i, REACH_PLANES * 64) {
            write_reach_u8(pos, out);
        }
        if let Some(out) = row(&mut self.packed_mask, i, PACKED_MASK_BYTES) {
            write_packed_mask(pos, out);
        }
        if let Some(out) = row(&mut self.bool_mask, i, ACTIONS) {
            write_bool_mask(pos, out);
        }
        if let Some(out) = row(&mut self.legal_actions, i, MAX_MOVES) {
            let n = write_legal_actions(pos, out);
            if let Some(count) = row(&mut self.legal_count, i, 1) {
                count[0] = n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::{write_mask_slow, ACTIONS as OBSERVE_ACTIONS};
    use yolah::Rng;

    /// Random positions along random games, the ends included.
    fn positions() -> Vec<Position> {
        let mut rng = Rng::new(9);
        let mut out = Vec::new();
        for _ in 0..40 {
            let mut pos = Position::START;
            out.push(pos);
            while !pos.is_game_over() {
                pos.play(pos.random_move(&mut rng));
                out.push(pos);
            }
        }
        out
    }

    #[test]
    fn every_form_agrees_with_the_mask_of_position() {
        assert_eq!(OBSERVE_ACTIONS, ACTIONS);
        let (mut fast, mut slow) = ([0u8; 256], [0u8; 256]);
        let (mut reference, mut mask) = ([false; ACTIONS], [false; ACTIONS]);
        let (mut packed, mut legal) = ([0u8; PACKED_MASK_BYTES], [0i16; MAX_MOVES]);
        let mut reach_cells = [0u8; REACH_PLANES * 64];
        for pos in positions() {
            write_planes_u8(&pos, &mut fast);
            write_planes_u8_slow(&pos, &mut slow);
            assert_eq!(fast, slow);
            write_reach_u8(&pos, &mut reach_cells);
            for (p, bits) in reach(&planes(&pos)).iter().enumerate() {
                for sq in 0..64 {
                    assert_eq!(u64::from(reach_cells[p * 64 + sq]), bits >> sq & 1);
                }
            }
            write_mask_slow(&pos, &mut reference);
            write_bool_mask(&pos, &mut mask);
            assert_eq!(mask, reference);
            write_packed_mask(&pos, &mut packed);
            let unpacked: Vec<bool> = (0..ACTIONS)
                .map(|a| packed[a / 8] >> (a % 8) & 1 == 1)
                .collect();
            assert_eq!(unpacked, reference);
            let n = usize::from(write_legal_actions(&pos, &mut legal));
            let listed: Vec<usize> = (0..ACTIONS).filter(|&a| reference[a]).collect();
            let written: Vec<usize> = legal[..n].iter().map(|&a| a as usize).collect();
            assert_eq!(written, listed);
            assert!(legal[n..].iter().all(|&a| a == -1));
        }
    }
}
