//! Whether a move may be played, and if not, exactly why: the pass while
//! moves exist, an origin without a piece of the side to move, a taken
//! destination, a destination off the piece's lines, or the first piece or
//! hole in the way.
//!
//! A legal move costs one magic lookup, as before; only a refused move is
//! then looked at square by square to name the reason.

use crate::attacks::queen_moves;
use crate::moves::Move;
use crate::position::{Color, Position};
use crate::Square;
use core::fmt;

/// What stands on a square a move needs: a piece, or a hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Obstacle {
    /// A piece of this side.
    Piece(Color),
    /// A hole, left by an earlier move.
    Hole,
}

impl fmt::Display for Obstacle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Obstacle::Piece(color) => write!(f, "a {color} piece"),
            Obstacle::Hole => f.write_str("a hole"),
        }
    }
}

/// Why a move may not be played in a position. The message names the
/// squares; the caller quotes the move as it was typed.
///
/// ```
/// use yolah::{IllegalMove, Move, Position};
///
/// let m: Move = "d5:d4".parse().unwrap();
/// let e = Position::START.check_move(m).unwrap_err();
/// assert!(matches!(e, IllegalMove::Occupied { .. }));
/// assert_eq!(e.to_string(), "d4 is occupied by a white piece");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IllegalMove {
    /// The side to move passes (`a1:a1`) although it has moves.
    PassWithMoves(Color),
    /// The origin is an empty square.
    EmptyOrigin {
        /// The side to move.
        side: Color,
        /// The origin.
        from: Square,
    },
    /// The origin holds the other side's piece, or a hole.
    NotYourPiece {
        /// The side to move.
        side: Color,
        /// The origin.
        from: Square,
        /// What is on it.
        found: Obstacle,
    },
    /// The destination holds a piece.
    Occupied {
        /// The destination.
        to: Square,
        /// Whose piece.
        by: Color,
    },
    /// The destination is a hole.
    HoleDestination {
        /// The destination.
        to: Square,
    },
    /// The destination is on none of the origin's rank, file and diagonals.
    NotALine {
        /// The origin.
        from: Square,
        /// The destination.
        to: Square,
    },
    /// A piece or a hole between the origin and the destination.
    Blocked {
        /// The origin.
        from: Square,
        /// The destination.
        to: Square,
        /// The first square in the way, from the origin.
        at: Square,
        /// What is on it.
        by: Obstacle,
    },
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::PassWithMoves(side) => {
                write!(f, "{side} may not pass while it has moves")
            }
            IllegalMove::EmptyOrigin { side, from } => {
                write!(f, "{from} does not hold a {side} piece (it is empty)")
            }
            IllegalMove::NotYourPiece { side, from, found } => {
                write!(f, "{from} does not hold a {side} piece (it is {found})")
            }
            IllegalMove::Occupied { to, by } => write!(f, "{to} is occupied by a {by} piece"),
            IllegalMove::HoleDestination { to } => write!(f, "{to} is a hole"),
            IllegalMove::NotALine { from, to } => write!(
                f,
                "{to} is not on a line from {from} (a piece moves along a rank, a file or a diagonal)"
            ),
            IllegalMove::Blocked { from, to, at, by } => {
                write!(f, "{by} on {at} is in the way from {from} to {to}")
            }
        }
    }
}

impl std::error::Error for IllegalMove {}

impl Position {
    /// What is on `sq`, if anything.
    pub fn obstacle(&self, sq: Square) -> Option<Obstacle> {
        if self.holes().contains(sq) {
            Some(Obstacle::Hole)
        } else if self.pieces(Color::Black).contains(sq) {
            Some(Obstacle::Piece(Color::Black))
        } else if self.pieces(Color::White).contains(sq) {
            Some(Obstacle::Piece(Color::White))
        } else {
            None
        }
    }

    /// Whether `m` is legal here, and why not if it is not.
    pub fn check_move(&self, m: Move) -> Result<(), IllegalMove> {
        let side = self.side_to_move();
        if m.is_pass() {
            return match self.can_move(side) {
                true => Err(IllegalMove::PassWithMoves(side)),
                false => Ok(()),
            };
        }
        let (from, to) = (m.from(), m.to());
        if !self.pieces(side).contains(from) {
            return Err(match self.obstacle(from) {
                None => IllegalMove::EmptyOrigin { side, from },
                Some(found) => IllegalMove::NotYourPiece { side, from, found },
            });
        }
        if queen_moves(from, self.blockers()).contains(to) {
            return Ok(());
        }
        Err(self.unreachable(from, to))
    }

    /// Why the piece on `from` cannot reach `to`, which the move tables
    /// refused: the destination is taken, off the piece's lines, or a
    /// piece or hole lies between.
    fn unreachable(&self, from: Square, to: Square) -> IllegalMove {
        match self.obstacle(to) {
            Some(Obstacle::Piece(by)) => return IllegalMove::Occupied { to, by },
            Some(Obstacle::Hole) => return IllegalMove::HoleDestination { to },
            None => {}
        }
        let df = i16::from(to.file()) - i16::from(from.file());
        let dr = i16::from(to.rank()) - i16::from(from.rank());
        if !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
            return IllegalMove::NotALine { from, to };
        }
        let steps = df.abs().max(dr.abs());
        let between = (1..steps).filter_map(|k| {
            let file = i16::from(from.file()) + df.signum() * k;
            let rank = i16::from(from.rank()) + dr.signum() * k;
            Square::from_coords(file as u8, rank as u8)
        });
        for at in between {
            if let Some(by) = self.obstacle(at) {
                return IllegalMove::Blocked { from, to, at, by };
            }
        }
        // The tables and the walk above agree on every move (the test
        // below tries them all); were they ever not to, the move is still
        // refused, and said to be off the line.
        IllegalMove::NotALine { from, to }
    }

    /// Checks `m` and plays it.
    pub fn try_play(&mut self, m: Move) -> Result<(), IllegalMove> {
        self.check_move(m)?;
        self.play(m);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attacks::shadow;
    use crate::playout::sample_positions;

    fn m(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn each_reason_is_named_exactly() {
        let pos = Position::START;
        let e = |t: &str| pos.check_move(m(t)).unwrap_err();
        let sq = |s: &str| Square::parse(s).unwrap();
        assert_eq!(e("a1:a1"), IllegalMove::PassWithMoves(Color::Black));
        assert_eq!(
            e("h1:h2"),
            IllegalMove::NotYourPiece {
                side: Color::Black,
                from: sq("h1"),
                found: Obstacle::Piece(Color::White)
            }
        );
        assert_eq!(
            e("b2:b3"),
            IllegalMove::EmptyOrigin {
                side: Color::Black,
                from: sq("b2")
            }
        );
        let occupied = e("d5:d4");
        assert_eq!(occupied.to_string(), "d4 is occupied by a white piece");
        assert_eq!(
            e("e4:d5"),
            IllegalMove::Occupied {
                to: sq("d5"),
                by: Color::Black
            }
        );
        assert_eq!(
            e("a1:g7").to_string(),
            "a white piece on d4 is in the way from a1 to g7"
        );
        assert_eq!(
            e("a1:c2").to_string(),
            "c2 is not on a line from a1 (a piece moves along a rank, a file or a diagonal)"
        );
        let mut holed = pos;
        holed.play(m("d5:b7"));
        holed.play(m("d4:b6"));
        let e = |t: &str| holed.check_move(m(t)).unwrap_err().to_string();
        assert_eq!(e("e4:d4"), "d4 is a hole");
        assert_eq!(e("e4:c6"), "a hole on d5 is in the way from e4 to c6");
        assert_eq!(e("d5:d6"), "d5 does not hold a black piece (it is a hole)");
        assert!(pos.check_move(m("d5:b7")).is_ok());
    }

    /// Every one of the 4,096 moves in positions from every stage of the
    /// game: legal exactly when move generation lists it, and refused for
    /// a reason that holds on the board.
    #[test]
    fn reasons_agree_with_move_generation() {
        for pos in sample_positions(300, 5) {
            let legal = pos.legal_moves();
            for bits in 0..4096u16 {
                let Some(mv) = Move::from_u16(bits) else {
                    continue;
                };
                let listed = legal.contains(mv);
                match pos.check_move(mv) {
                    Ok(()) => assert!(listed, "{pos} {mv}"),
                    Err(reason) => {
                        assert!(!listed, "{pos} {mv}: {reason}");
                        assert_holds(&pos, mv, &reason);
                    }
                }
            }
        }
    }

    /// Fails unless `reason` is true of `mv` in `pos`.
    fn assert_holds(pos: &Position, mv: Move, reason: &IllegalMove) {
        let (from, to) = (mv.from(), mv.to());
        let side = pos.side_to_move();
        let on_line = {
            let (df, dr) = (
                i16::from(to.file()) - i16::from(from.file()),
                i16::from(to.rank()) - i16::from(from.rank()),
            );
            df == 0 || dr == 0 || df.abs() == dr.abs()
        };
        let holds = match *reason {
            IllegalMove::PassWithMoves(s) => mv.is_pass() && s == side && pos.can_move(side),
            IllegalMove::EmptyOrigin { from: f, .. } => f == from && pos.obstacle(from).is_none(),
            IllegalMove::NotYourPiece { from: f, found, .. } => {
                f == from && pos.obstacle(from) == Some(found) && found != Obstacle::Piece(side)
            }
            IllegalMove::Occupied { to: t, by } => {
                t == to && pos.obstacle(to) == Some(Obstacle::Piece(by))
            }
            IllegalMove::HoleDestination { to: t } => t == to && pos.holes().contains(to),
            IllegalMove::NotALine { .. } => !on_line,
            IllegalMove::Blocked { at, by, .. } => {
                // `at` lies between: `to` is on the line behind it.
                let between = at != to && shadow(from, at).contains(to);
                on_line && between && pos.obstacle(at) == Some(by)
            }
        };
        assert!(holds, "{pos} {mv}: {reason}");
    }
}
