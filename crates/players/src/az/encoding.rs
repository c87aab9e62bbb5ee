//! What a learner sees of a position, and how it names moves: the one
//! definition that `yolah.vector`, `yolah.search`, `Position.observation`
//! and the `az` network all use.
//!
//! * Planes, from the side to move's point of view, each a bitboard (bit
//!   0 = a1, bit 63 = h8): 0 its pieces, 1 the opponent's, 2 the holes,
//!   3 the empty squares. The four planes split the board: exactly 64 bits
//!   are set in all.
//! * Scores, the same way round: the side to move's points, then the
//!   opponent's. The planes alone do not say who is ahead (a hole does not
//!   remember who left it), and the result is decided by the points.
//! * Reach (optional), the same way round: the squares the side to move's
//!   pieces can move to, and the opponent's: what a network cannot easily
//!   compute from the planes, and what mobility and territory are made of.
//! * Actions: a move is `from * 64 + to` (squares a1 = 0 … h8 = 63); the
//!   pass `a1:a1` is action 0.

use yolah::attacks::queen_moves;
use yolah::{Bitboard, Move, Position, Square};

/// Planes of an observation.
pub const PLANES: usize = 4;
/// Size of the action space: `from * 64 + to`.
pub const ACTIONS: usize = 64 * 64;

/// The four planes of `pos` as bitboards, seen from the side to move.
#[inline]
pub fn planes(pos: &Position) -> [u64; PLANES] {
    let us = pos.side_to_move();
    [
        pos.pieces(us).0,
        pos.pieces(us.opponent()).0,
        pos.holes().0,
        pos.free().0,
    ]
}

/// Reach planes of an observation.
pub const REACH_PLANES: usize = 2;

/// The squares the side to move's pieces reach in one move, and the
/// opponent's, from the planes of [`planes`].
#[inline]
pub fn reach(planes: &[u64; PLANES]) -> [u64; REACH_PLANES] {
    let blockers = Bitboard(!planes[3]);
    let of = |pieces: u64| {
        Bitboard(pieces)
            .into_iter()
            .fold(0, |all, sq: Square| all | queen_moves(sq, blockers).0)
    };
    [of(planes[0]), of(planes[1])]
}

/// The side to move's points and the opponent's.
#[inline]
pub fn scores(pos: &Position) -> [u8; 2] {
    let us = pos.side_to_move();
    [pos.score(us), pos.score(us.opponent())]
}

/// The action index of a move: `from * 64 + to` (the pass is 0).
#[inline]
pub fn action_index(m: Move) -> usize {
    m.from().index() * 64 + m.to().index()
}

/// The move of an action below [`ACTIONS`], if it is one.
pub fn move_of_action(action: usize) -> Option<Move> {
    let action = u16::try_from(action).ok().filter(|&a| a < ACTIONS as u16)?;
    Move::from_u16((action / 64) | ((action % 64) << 6))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_split_the_board_and_follow_the_side_to_move() {
        let mut pos = Position::START;
        let p = planes(&pos);
        assert_eq!(p.iter().map(|b| b.count_ones()).sum::<u32>(), 64);
        assert_eq!(p[0] & 1, 1, "a1 is Black's, and Black moves first");
        pos.play("d5:b7".parse().unwrap());
        let p = planes(&pos);
        assert_eq!((p[1] & 1, p[2] >> 35 & 1), (1, 1), "a1 theirs, d5 a hole");
        assert_eq!(scores(&pos), [0, 1]);
    }

    #[test]
    fn reach_is_where_the_pieces_can_go() {
        let targets = |p: &Position| {
            p.legal_moves()
                .iter()
                .filter(|m| !m.is_pass())
                .fold(0u64, |b, m| b | m.to().bitboard().0)
        };
        // The same board with the other side to move (one more ply).
        let other_side = |p: &Position| -> Position {
            let text = p.to_text();
            let f: Vec<&str> = text.split_whitespace().collect();
            let side = if f[1] == "b" { "w" } else { "b" };
            let ply: u16 = f[4].parse().unwrap();
            format!("{} {side} {} {} {}", f[0], f[2], f[3], ply + 1)
                .parse()
                .unwrap()
        };
        let mut rng = yolah::Rng::new(4);
        let mut pos = Position::START;
        while !pos.is_game_over() {
            let r = reach(&planes(&pos));
            assert_eq!(r[0], targets(&pos));
            assert_eq!(r[1], targets(&other_side(&pos)));
            pos.play(pos.random_move(&mut rng));
        }
    }

    #[test]
    fn actions_round_trip() {
        for a in 0..ACTIONS {
            if let Some(m) = move_of_action(a) {
                assert_eq!(action_index(m), a);
            }
        }
        assert_eq!(move_of_action(0), Some(Move::PASS));
        assert_eq!(move_of_action(ACTIONS), None);
        let m: Move = "d5:b7".parse().unwrap();
        assert_eq!(action_index(m), 35 * 64 + 49);
    }
}
