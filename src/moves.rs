//! Moves and fixed-capacity move lists.

use crate::Square;
use core::fmt;
use core::str::FromStr;

/// A move: a piece slides `from` one square `to` another; written `from:to`.
///
/// Packed in 16 bits as `from | to << 6`. The pass, played by a side with no
/// move, is `a1:a1` (both squares a1), so `Move::PASS` is all zeros.
///
/// ```
/// use yolah::Move;
///
/// let m: Move = "d5:b7".parse().unwrap();
/// assert_eq!(m.to_string(), "d5:b7");
/// assert_eq!(m.from().to_string(), "d5");
/// assert!("a1:a1".parse::<Move>().unwrap().is_pass());
/// assert!("d5-b7".parse::<Move>().is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move(u16);

impl Move {
    /// The pass, `a1:a1`.
    pub const PASS: Move = Move(0);

    /// The move from `from` to `to`.
    #[inline(always)]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6)
    }

    /// The square the piece leaves (a1 for the pass).
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new_masked(self.0 as u32)
    }

    /// The square the piece lands on (a1 for the pass).
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new_masked((self.0 >> 6) as u32)
    }

    /// Whether this is the pass `a1:a1`.
    #[inline(always)]
    pub const fn is_pass(self) -> bool {
        self.0 == 0
    }

    /// The 16-bit encoding `from | to << 6`.
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// The move with encoding `bits`, if it is one (`from | to << 6`, never
    /// from == to unless it is the pass).
    pub const fn from_u16(bits: u16) -> Option<Move> {
        let m = Move(bits);
        if bits >> 12 != 0 || (bits != 0 && m.from().index() == m.to().index()) {
            None
        } else {
            Some(m)
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a text is not a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseMoveError {
    /// No `:` between the two squares.
    MissingColon(String),
    /// A square name that is not `a1` … `h8`.
    BadSquare {
        /// The move as written.
        text: String,
        /// The part that should be a square.
        square: String,
    },
    /// Both squares the same (only the pass `a1:a1` stays put).
    SameSquare(String),
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseMoveError::MissingColon(t) => {
                write!(
                    f,
                    "{t:?} is not a move: write from:to, like d5:b7 (a1:a1 to pass)"
                )
            }
            ParseMoveError::BadSquare { text, square } => write!(
                f,
                "{text:?} is not a move: {square:?} is not a square (files a-h, ranks 1-8, like d5)"
            ),
            ParseMoveError::SameSquare(t) => {
                write!(
                    f,
                    "{t:?} does not move: only the pass a1:a1 starts and ends on one square"
                )
            }
        }
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(text: &str) -> Result<Move, ParseMoveError> {
        let (from, to) = text
            .split_once(':')
            .ok_or_else(|| ParseMoveError::MissingColon(text.to_string()))?;
        let square = |s: &str| {
            Square::parse(s).ok_or_else(|| ParseMoveError::BadSquare {
                text: text.to_string(),
                square: s.to_string(),
            })
        };
        let (from, to) = (square(from)?, square(to)?);
        if from == to && from != Square::A1 {
            return Err(ParseMoveError::SameSquare(text.to_string()));
        }
        Ok(Move::new(from, to))
    }
}

/// The most moves a side can have: four queens with 27 targets each.
pub const MAX_MOVES: usize = 4 * 27;

/// A list of moves on the stack, never allocating.
///
/// ```
/// use yolah::Position;
///
/// let moves = Position::START.legal_moves();
/// assert_eq!(moves.len(), 56);
/// assert!(moves.iter().all(|m| !m.is_pass()));
/// ```
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: u8,
}

impl MoveList {
    /// An empty list.
    #[inline(always)]
    pub const fn new() -> MoveList {
        MoveList {
            moves: [Move::PASS; MAX_MOVES],
            len: 0,
        }
    }

    /// Appends `m`. The capacity is the proven maximum, so this never fails.
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len as usize] = m;
        self.len += 1;
    }

    /// The number of moves.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the list is empty.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }

    /// The moves as a mutable slice (to sort them, say).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len as usize]
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> core::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    /// Whether `m` is in the list.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl core::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = core::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_round_trips_through_text() {
        for bits in 0..=u16::MAX {
            if let Some(m) = Move::from_u16(bits) {
                assert_eq!(m.to_string().parse::<Move>(), Ok(m));
                assert_eq!(m.to_u16(), bits);
            }
        }
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
        let e = |t: &str| t.parse::<Move>().unwrap_err().to_string();
        assert!(e("d5b7").contains("from:to"));
        assert!(e("d5:b9").contains("\"b9\" is not a square"));
        assert!(e("d5:d5").contains("does not move"));
        assert!(e("").contains("from:to"));
    }
}
