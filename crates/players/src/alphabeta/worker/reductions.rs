//! Late-move reductions: how many plies less a late move is first searched,
//! from a table made at compile time (the formula's two logarithms had been
//! about 1% of a search's time).

use super::MAX_PLY;
use yolah::MAX_MOVES;

/// How many plies less the `index`-th move (from 0) of a node `depth` plies
/// from the horizon is first searched: the usual logarithmic formula, more
/// for later moves and deeper nodes. The same as
/// [`late_move_reduction_slow`], read from a table.
#[inline]
pub(super) fn late_move_reduction(depth: u32, index: usize) -> u32 {
    u32::from(REDUCTIONS[depth as usize][index])
}

/// The formula: `0.5 + ln(depth) · ln(index) / 2.25`, rounded down.
#[cfg_attr(not(test), allow(dead_code))]
fn late_move_reduction_slow(depth: u32, index: usize) -> u32 {
    let r = 0.5 + (depth as f32).ln() * (index as f32).ln() / 2.25;
    r as u32
}

/// [`late_move_reduction_slow`] for every depth (below [`MAX_PLY`]) and
/// move index (below [`MAX_MOVES`]) a search can meet.
static REDUCTIONS: [[u8; MAX_MOVES]; MAX_PLY] = reductions();

// The deepest search there is fits the table: `AlphaBeta::iterate` stops at
// twice a position's free squares plus two, and a position has at most 56
// free squares (64 less the eight pieces); no extension goes deeper than
// its node.
const _: () = assert!(2 * 56 + 2 < MAX_PLY);

const fn reductions() -> [[u8; MAX_MOVES]; MAX_PLY] {
    let ln_depth: [f32; MAX_PLY] = logs();
    let ln_index: [f32; MAX_MOVES] = logs();
    let mut table = [[0u8; MAX_MOVES]; MAX_PLY];
    let mut d = 1;
    while d < MAX_PLY {
        let mut i = 1;
        while i < MAX_MOVES {
            let r = 0.5 + ln_depth[d] * ln_index[i] / 2.25;
            table[d][i] = r as u8;
            i += 1;
        }
        d += 1;
    }
    table
}

/// `ln n` for `n` in `1..N` (and 0 for 0, unused), rounded to `f32`: in
/// `f64`, `ln x = 2 artanh((x - 1) / (x + 1))`, summed until a term no
/// longer changes the sum.
const fn logs<const N: usize>() -> [f32; N] {
    let mut out = [0.0f32; N];
    let mut n = 1;
    while n < N {
        let y = (n as f64 - 1.0) / (n as f64 + 1.0);
        let (mut power, mut sum, mut k) = (y, 0.0f64, 1.0f64);
        loop {
            let next = sum + power / k;
            if next == sum {
                break;
            }
            sum = next;
            power *= y * y;
            k += 2.0;
        }
        out[n] = (2.0 * sum) as f32;
        n += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_the_formula_everywhere() {
        for depth in 0..MAX_PLY as u32 {
            for index in 0..MAX_MOVES {
                // The search never asks for depth or index 0 (the formula
                // is meaningless there); the table holds 0.
                let slow = if depth == 0 || index == 0 {
                    0
                } else {
                    late_move_reduction_slow(depth, index)
                };
                assert_eq!(late_move_reduction(depth, index), slow, "{depth} {index}");
            }
        }
    }
}
