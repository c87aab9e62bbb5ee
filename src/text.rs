//! The text form of a position, and the drawn board.
//!
//! A position is written as five fields separated by spaces:
//!
//! ```text
//! w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0
//! BOARD                     SIDE BLACK_SCORE WHITE_SCORE PLY
//! ```
//!
//! BOARD lists ranks 8 down to 1, separated by `/`, each from file a to h:
//! `b` a black piece, `w` a white piece, `x` a hole, and a digit 1-8 for that
//! many empty squares. SIDE is `b` or `w` and must agree with the ply (Black
//! moves on even plies).

use crate::position::{Color, Position};
use crate::{Bitboard, Square};
use core::fmt;
use core::str::FromStr;

/// Why a text (or a set of parts) is not a position.
///
/// ```
/// use yolah::{ParsePositionError, Position};
///
/// let e = "8/8 b 0 0 0".parse::<Position>().unwrap_err();
/// assert_eq!(e, ParsePositionError::RankCount { found: 2 });
/// assert_eq!(e.to_string(), "bad position: the board has 2 ranks, not 8 separated by /");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParsePositionError {
    /// Not the five fields BOARD SIDE BLACK_SCORE WHITE_SCORE PLY.
    FieldCount {
        /// How many fields the text has.
        found: usize,
    },
    /// The board has not eight ranks separated by `/`.
    RankCount {
        /// How many it has.
        found: usize,
    },
    /// A rank holds a character other than `b`, `w`, `x` or a digit 1-8.
    BadSymbol {
        /// The rank, 1 to 8.
        rank: u8,
        /// The character.
        symbol: char,
    },
    /// A rank describes more than eight squares.
    RankTooLong {
        /// The rank, 1 to 8.
        rank: u8,
    },
    /// A rank describes fewer than eight squares.
    RankTooShort {
        /// The rank, 1 to 8.
        rank: u8,
        /// How many it describes.
        squares: u8,
    },
    /// A score or the ply is not a whole number in its range.
    BadNumber {
        /// Which field: `black score`, `white score` or `ply`.
        field: &'static str,
        /// The field as written.
        text: String,
        /// The largest value it takes.
        max: u16,
    },
    /// The side to move is not `b` or `w`.
    BadSide {
        /// The field as written.
        text: String,
    },
    /// The side to move is not the one of the ply (Black moves on even
    /// plies).
    SideMismatch {
        /// The side written.
        side: Color,
        /// The ply written.
        ply: u16,
    },
    /// A side has not four pieces.
    PieceCount {
        /// The side.
        color: Color,
        /// How many it has.
        count: u32,
    },
    /// Two pieces, or a piece and a hole, on one square.
    Overlap,
    /// A score above 64 or a ply above 1000.
    OutOfRange {
        /// Black's score.
        black_score: u8,
        /// White's score.
        white_score: u8,
        /// The ply.
        ply: u16,
    },
    /// Not one hole per point scored.
    HolesAndPoints {
        /// The holes on the board.
        holes: u32,
        /// The points scored, both sides.
        points: u32,
    },
    /// A ply below the number of moves the scores count.
    PlyBelowMoves {
        /// The ply.
        ply: u16,
        /// The moves played (the points scored).
        moves: u32,
    },
}

impl fmt::Display for ParsePositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bad position: ")?;
        match self {
            ParsePositionError::FieldCount { found } => write!(
                f,
                "expected 5 fields (BOARD SIDE BLACK_SCORE WHITE_SCORE PLY), found {found}"
            ),
            ParsePositionError::RankCount { found } => {
                write!(f, "the board has {found} ranks, not 8 separated by /")
            }
            ParsePositionError::BadSymbol { rank, symbol } => {
                write!(f, "rank {rank}: {symbol:?} is not b, w, x or a digit 1-8")
            }
            ParsePositionError::RankTooLong { rank } => {
                write!(f, "rank {rank} has more than 8 squares")
            }
            ParsePositionError::RankTooShort { rank, squares } => {
                write!(f, "rank {rank} has {squares} squares, not 8")
            }
            ParsePositionError::BadNumber { field, text, max } => {
                write!(f, "{field} {text:?} is not a number from 0 to {max}")
            }
            ParsePositionError::BadSide { text } => {
                write!(f, "side to move {text:?} is not b or w")
            }
            ParsePositionError::SideMismatch { side, ply } => write!(
                f,
                "side {side} does not match ply {ply} (black moves on even plies)"
            ),
            ParsePositionError::PieceCount { color, count } => {
                write!(f, "{color} has {count} pieces, not 4")
            }
            ParsePositionError::Overlap => {
                f.write_str("a square holds two things (pieces or holes overlap)")
            }
            ParsePositionError::OutOfRange {
                black_score,
                white_score,
                ply,
            } => write!(
                f,
                "scores {black_score}-{white_score} or ply {ply} out of range"
            ),
            ParsePositionError::HolesAndPoints { holes, points } => write!(
                f,
                "{holes} holes but {points} points: every move leaves one hole and scores one point"
            ),
            ParsePositionError::PlyBelowMoves { ply, moves } => {
                write!(f, "ply {ply} is below the {moves} moves played")
            }
        }
    }
}

impl std::error::Error for ParsePositionError {}

impl FromStr for Position {
    type Err = ParsePositionError;

    fn from_str(text: &str) -> Result<Position, ParsePositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [board, side, black_score, white_score, ply] = fields[..] else {
            return Err(ParsePositionError::FieldCount {
                found: fields.len(),
            });
        };
        let (black, white, holes) = parse_board(board)?;
        let number = |field: &'static str, text: &str, max: u16| {
            text.parse::<u16>()
                .ok()
                .filter(|&n| n <= max)
                .ok_or_else(|| ParsePositionError::BadNumber {
                    field,
                    text: text.to_string(),
                    max,
                })
        };
        let black_score = number("black score", black_score, 64)? as u8;
        let white_score = number("white score", white_score, 64)? as u8;
        let ply = number("ply", ply, 1000)?;
        let side = match side {
            "b" => Color::Black,
            "w" => Color::White,
            _ => {
                return Err(ParsePositionError::BadSide {
                    text: side.to_string(),
                })
            }
        };
        let pos = Position::from_parts(black, white, holes, black_score, white_score, ply)?;
        if pos.side_to_move() != side {
            return Err(ParsePositionError::SideMismatch { side, ply });
        }
        Ok(pos)
    }
}

fn parse_board(board: &str) -> Result<(Bitboard, Bitboard, Bitboard), ParsePositionError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(ParsePositionError::RankCount { found: ranks.len() });
    }
    let (mut black, mut white, mut holes) = (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
    for (i, row) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let too_long = ParsePositionError::RankTooLong { rank: rank + 1 };
        let mut file = 0u8;
        for c in row.chars() {
            let target = match c {
                '1'..='8' => {
                    file += c as u8 - b'0';
                    if file > 8 {
                        return Err(too_long);
                    }
                    continue;
                }
                'b' => &mut black,
                'w' => &mut white,
                'x' => &mut holes,
                _ => {
                    return Err(ParsePositionError::BadSymbol {
                        rank: rank + 1,
                        symbol: c,
                    })
                }
            };
            let sq = Square::from_coords(file, rank).ok_or(too_long.clone())?;
            *target |= sq.bitboard();
            file += 1;
        }
        if file != 8 {
            return Err(ParsePositionError::RankTooShort {
                rank: rank + 1,
                squares: file,
            });
        }
    }
    Ok((black, white, holes))
}

impl Position {
    /// A position from its parts, checked: 4 pieces a side, pieces and holes
    /// on different squares, as many holes as points scored, and a ply that
    /// counts at least those moves.
    pub fn from_parts(
        black: Bitboard,
        white: Bitboard,
        holes: Bitboard,
        black_score: u8,
        white_score: u8,
        ply: u16,
    ) -> Result<Position, ParsePositionError> {
        for (color, pieces) in [(Color::Black, black), (Color::White, white)] {
            if pieces.count() != 4 {
                return Err(ParsePositionError::PieceCount {
                    color,
                    count: pieces.count(),
                });
            }
        }
        if !(black & white).is_empty() || !((black | white) & holes).is_empty() {
            return Err(ParsePositionError::Overlap);
        }
        if black_score > 64 || white_score > 64 || ply > 1000 {
            return Err(ParsePositionError::OutOfRange {
                black_score,
                white_score,
                ply,
            });
        }
        let moves_played = u32::from(black_score) + u32::from(white_score);
        if holes.count() != moves_played {
            return Err(ParsePositionError::HolesAndPoints {
                holes: holes.count(),
                points: moves_played,
            });
        }
        if u32::from(ply) < moves_played {
            return Err(ParsePositionError::PlyBelowMoves {
                ply,
                moves: moves_played,
            });
        }
        Ok(Position {
            black,
            white,
            holes,
            black_score,
            white_score,
            ply,
        })
    }

    /// The text form, which [`str::parse`] reads back.
    ///
    /// ```
    /// use yolah::Position;
    ///
    /// let text = Position::START.to_text();
    /// assert_eq!(text, "w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0");
    /// assert_eq!(text.parse::<Position>(), Ok(Position::START));
    /// ```
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::from_coords(file, rank).expect("on the board");
                match self.symbol(sq) {
                    None => empty += 1,
                    Some(c) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(c);
                    }
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        let side = match self.side_to_move() {
            Color::Black => 'b',
            Color::White => 'w',
        };
        format!(
            "{out} {side} {} {} {}",
            self.black_score, self.white_score, self.ply
        )
    }

    fn symbol(&self, sq: Square) -> Option<char> {
        if self.black.contains(sq) {
            Some('b')
        } else if self.white.contains(sq) {
            Some('w')
        } else if self.holes.contains(sq) {
            Some('x')
        } else {
            None
        }
    }
}

impl fmt::Display for Position {
    /// Draws the board, rank 8 on top: `●` black, `○` white, `■` hole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            write!(f, "{} ", rank + 1)?;
            for file in 0..8 {
                let sq = Square::from_coords(file, rank).expect("on the board");
                let c = match self.symbol(sq) {
                    Some('b') => '●',
                    Some('w') => '○',
                    Some(_) => '■',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d e f g h")?;
        write!(
            f,
            "black {} - white {}, ply {}, ",
            self.black_score, self.white_score, self.ply
        )?;
        if self.is_game_over() {
            write!(f, "game over")
        } else {
            write!(f, "{} to move", self.side_to_move())
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({:?})", self.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_is_wrong() {
        let e = |t: &str| t.parse::<Position>().unwrap_err().to_string();
        assert!(e("").contains("5 fields"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8 b 0 0 0").contains("7 ranks"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b6 b 0 0 0").contains("rank 1 has 7"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b6q b 0 0 0").contains("'q'"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b6w w 0 0 0").contains("does not match"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b6w b 1 0 1").contains("holes"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b7 b 0 0 0").contains("white has 3"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 -1").contains("ply"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0 9").contains("found 6"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b8w b 0 0 0").contains("more than 8"));
        assert!(e("w6b/8/8/3bw3/3wb3/8/8/b6ww b 0 0 0").contains("more than 8"));
    }

    #[test]
    fn display_draws_the_start() {
        let drawn = Position::START.to_string();
        assert!(drawn.starts_with("8  ○ . . . . . . ●\n"), "{drawn}");
        assert!(drawn.contains("   a b c d e f g h\n"));
        assert!(drawn.ends_with("black to move"));
    }
}
