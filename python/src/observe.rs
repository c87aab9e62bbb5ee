//! Positions as NumPy arrays for learning: planes seen from the side to
//! move, and legal-move masks over the 4,096 from/to actions.
//!
//! Plane `p` of an observation is an 8x8 grid indexed `[rank][file]`, so
//! that `obs[p, 0, 0]` is a1 and `obs[p, 7, 7]` is h8 (the bit order of
//! the bitboards). The planes: 0 the side to move's pieces, 1 the
//! opponent's, 2 the holes, 3 the empty squares
//! (`yolah_players::az::encoding`, which the `az` network reads too).

use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::prelude::*;
use yolah::{Move, Position};
use yolah_players::az::encoding;
pub use yolah_players::az::encoding::{ACTIONS, PLANES};

/// The action index of a move: `from * 64 + to`.
pub fn action_of(m: Move) -> u16 {
    encoding::action_index(m) as u16
}

/// The move of an action index below 4,096, if it is one.
pub fn move_of_action(action: u16) -> Option<Move> {
    encoding::move_of_action(usize::from(action))
}

/// Writes the planes of `pos` into `out` (`PLANES * 64` floats).
pub fn write_planes(pos: &Position, out: &mut [f32]) {
    let boards = encoding::planes(pos);
    for (plane, bits) in out.chunks_exact_mut(64).zip(boards) {
        for (sq, cell) in plane.iter_mut().enumerate() {
            *cell = ((bits >> sq) & 1) as f32;
        }
    }
}

/// Writes the legal-move mask of `pos` into `out` (`ACTIONS` bools): all
/// false once the game is over. The plain definition, which the tests hold
/// [`crate::encode::write_bool_mask`] (the one in use) equal to.
#[cfg(test)]
pub(crate) fn write_mask_slow(pos: &Position, out: &mut [bool]) {
    out.fill(false);
    if pos.is_game_over() {
        return;
    }
    for &m in pos.legal_moves().iter() {
        out[usize::from(action_of(m))] = true;
    }
}

/// The planes of `pos` as a `(PLANES, 8, 8)` float32 array.
pub fn observation_array<'py>(py: Python<'py>, pos: &Position) -> Bound<'py, PyArray3<f32>> {
    let mut data = vec![0.0; PLANES * 64];
    write_planes(pos, &mut data);
    PyArray1::from_vec(py, data)
        .reshape([PLANES, 8, 8])
        .expect("PLANES * 64 floats reshape to (PLANES, 8, 8)")
}

/// The legal-move mask of `pos` as an `ACTIONS` bool array.
pub fn mask_array<'py>(py: Python<'py>, pos: &Position) -> Bound<'py, PyArray1<bool>> {
    let mut data = vec![false; ACTIONS];
    crate::encode::write_bool_mask(pos, &mut data);
    PyArray1::from_vec(py, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_are_seen_from_the_side_to_move() {
        let mut pos = Position::START;
        let mut planes = [0.0; PLANES * 64];
        write_planes(&pos, &mut planes);
        // Black to move: a1 (bit 0) is ours, h1 (bit 7) theirs.
        assert_eq!((planes[0], planes[64 + 7]), (1.0, 1.0));
        assert_eq!(planes.iter().sum::<f32>(), 64.0);
        pos.play("d5:b7".parse::<Move>().unwrap());
        write_planes(&pos, &mut planes);
        // White to move now: h1 is ours, a1 theirs, d5 (bit 35) a hole.
        assert_eq!((planes[7], planes[64], planes[128 + 35]), (1.0, 1.0, 1.0));
    }

    #[test]
    fn the_mask_has_every_legal_move_and_nothing_else() {
        let mut mask = [false; ACTIONS];
        write_mask_slow(&Position::START, &mut mask);
        assert_eq!(mask.iter().filter(|&&b| b).count(), 56);
        let m: Move = "d5:b7".parse().unwrap();
        assert!(mask[usize::from(action_of(m))]);
        assert_eq!(action_of(m), 35 * 64 + 49);
        assert_eq!(action_of(Move::PASS), 0);
    }
}
