//! Zobrist keys, computed by the compiler (`const fn`): like the move tables
//! they are in the binary's data from the start, with no initialisation.

use crate::rng::splitmix64;
use crate::{Color, Move, Position};

/// The random keys of every feature of a position.
pub struct Keys {
    black: [u64; 64],
    white: [u64; 64],
    holes: [u64; 64],
    /// Index: black score - white score + 64.
    score_diff: [u64; 129],
    white_to_move: u64,
}

const fn generate() -> Keys {
    let mut keys = Keys {
        black: [0; 64],
        white: [0; 64],
        holes: [0; 64],
        score_diff: [0; 129],
        white_to_move: 0,
    };
    let mut state = 0x9a1d_5eed_0b1a_c4e5u64;
    let mut i = 0;
    while i < 64 {
        state = splitmix64(state);
        keys.black[i] = state;
        state = splitmix64(state);
        keys.white[i] = state;
        state = splitmix64(state);
        keys.holes[i] = state;
        i += 1;
    }
    let mut d = 0;
    while d < 129 {
        state = splitmix64(state);
        keys.score_diff[d] = state;
        d += 1;
    }
    keys.white_to_move = splitmix64(state);
    keys
}

/// The keys, evaluated at compile time.
pub static KEYS: Keys = generate();

fn diff_index(pos: &Position) -> usize {
    (i32::from(pos.score(Color::Black)) - i32::from(pos.score(Color::White)) + 64) as usize
}

/// The key of `pos`, from scratch.
pub fn key(pos: &Position) -> u64 {
    let mut k = KEYS.score_diff[diff_index(pos)];
    for sq in pos.pieces(Color::Black) {
        k ^= KEYS.black[sq.index()];
    }
    for sq in pos.pieces(Color::White) {
        k ^= KEYS.white[sq.index()];
    }
    for sq in pos.holes() {
        k ^= KEYS.holes[sq.index()];
    }
    if pos.side_to_move() == Color::White {
        k ^= KEYS.white_to_move;
    }
    k
}

/// The key after playing `m` in `pos` (whose key is `k`), in a few xors.
#[inline(always)]
pub fn key_after(k: u64, pos: &Position, m: Move) -> u64 {
    let mut k = k ^ KEYS.white_to_move;
    if !m.is_pass() {
        let (from, to) = (m.from().index(), m.to().index());
        let pieces = match pos.side_to_move() {
            Color::Black => &KEYS.black,
            Color::White => &KEYS.white,
        };
        let d = diff_index(pos);
        let new_d = if pos.side_to_move() == Color::Black {
            d + 1
        } else {
            d - 1
        };
        k ^= pieces[from]
            ^ pieces[to]
            ^ KEYS.holes[from]
            ^ KEYS.score_diff[d]
            ^ KEYS.score_diff[new_d];
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;

    #[test]
    fn incremental_keys_match_fresh_keys() {
        for seed in 0..200 {
            let mut rng = Rng::new(seed);
            let mut pos = Position::START;
            let mut k = key(&pos);
            while !pos.is_game_over() {
                let m = pos.random_move(&mut rng);
                k = key_after(k, &pos, m);
                pos.play(m);
                assert_eq!(k, key(&pos));
            }
        }
    }
}
