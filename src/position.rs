//! The game state and its rules.

use crate::attacks::queen_moves;
use crate::moves::{Move, MoveList};
use crate::rng::Rng;
use crate::{Bitboard, Square};
use core::fmt;

/// A side: Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Starts on a1, e4, d5, h8 and moves first.
    Black,
    /// Starts on h1, d4, e5, a8.
    White,
}

impl Color {
    /// The other side.
    #[inline(always)]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `"black"` or `"white"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Yolah position: 32 bytes, `Copy`.
///
/// The side to move follows from the ply: Black on even plies. Every move
/// (not the pass) leaves a hole where the piece stood and scores a point.
///
/// ```
/// use yolah::{Color, Move, Position};
///
/// let mut pos = Position::START;
/// assert_eq!(pos.side_to_move(), Color::Black);
/// let m: Move = "d5:b7".parse().unwrap();
/// pos.play(m);
/// assert_eq!((pos.score(Color::Black), pos.side_to_move()), (1, Color::White));
/// pos.undo(m);
/// assert_eq!(pos, Position::START);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) black: Bitboard,
    pub(crate) white: Bitboard,
    pub(crate) holes: Bitboard,
    pub(crate) black_score: u8,
    pub(crate) white_score: u8,
    pub(crate) ply: u16,
}

/// Who is ahead, and so, once the game is over, who won.
///
/// The one place where a result is read off the two scores: points for a
/// match, signs for training data and the `1-0` notation all come from here.
///
/// ```
/// use yolah::{Color, Outcome};
///
/// let o = Outcome::from_scores(12, 9);
/// assert_eq!(o, Outcome::Winner(Color::Black));
/// assert_eq!((o.points(Color::White), o.sign(Color::White)), (0.0, -1));
/// assert_eq!(o.notation(), "1-0");
/// assert_eq!(Outcome::Draw.points(Color::Black), 0.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side scored more.
    Winner(Color),
    /// Equal scores.
    Draw,
}

impl Outcome {
    /// The outcome of Black scoring `black` and White `white`.
    pub const fn from_scores(black: u8, white: u8) -> Outcome {
        if black > white {
            Outcome::Winner(Color::Black)
        } else if white > black {
            Outcome::Winner(Color::White)
        } else {
            Outcome::Draw
        }
    }

    /// `+1` if `color` won, `0` for a draw, `-1` if it lost.
    pub const fn sign(self, color: Color) -> i8 {
        match self {
            Outcome::Draw => 0,
            Outcome::Winner(c) if c as u8 == color as u8 => 1,
            Outcome::Winner(_) => -1,
        }
    }

    /// Match points of `color`: 1 for a win, ½ for a draw, 0 for a loss.
    pub const fn points(self, color: Color) -> f64 {
        match self.sign(color) {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        }
    }

    /// The result as game records write it: `1-0` (Black won), `0-1` or
    /// `1/2-1/2`.
    pub const fn notation(self) -> &'static str {
        match self {
            Outcome::Winner(Color::Black) => "1-0",
            Outcome::Winner(Color::White) => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
}

impl Position {
    /// The starting position: Black on a1 e4 d5 h8, White on h1 d4 e5 a8,
    /// Black to move.
    ///
    /// ```text
    /// 8 | ○ . . . . . . ●
    /// 5 | . . . ● ○ . . .
    /// 4 | . . . ○ ● . . .
    /// 1 | ● . . . . . . ○
    /// ```
    pub const START: Position = Position {
        black: Bitboard(1 << 0 | 1 << 28 | 1 << 35 | 1 << 63),
        white: Bitboard(1 << 7 | 1 << 27 | 1 << 36 | 1 << 56),
        holes: Bitboard::EMPTY,
        black_score: 0,
        white_score: 0,
        ply: 0,
    };

    /// The pieces of `color`.
    #[inline(always)]
    pub const fn pieces(&self, color: Color) -> Bitboard {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// The destroyed squares.
    #[inline(always)]
    pub const fn holes(&self) -> Bitboard {
        self.holes
    }

    /// Pieces of both sides and holes: everything a move cannot cross.
    #[inline(always)]
    pub const fn blockers(&self) -> Bitboard {
        Bitboard(self.black.0 | self.white.0 | self.holes.0)
    }

    /// The squares a piece could still land on.
    #[inline(always)]
    pub const fn free(&self) -> Bitboard {
        Bitboard(!self.blockers().0)
    }

    /// The points of `color`: the moves (not passes) it has played.
    #[inline(always)]
    pub const fn score(&self, color: Color) -> u8 {
        match color {
            Color::Black => self.black_score,
            Color::White => self.white_score,
        }
    }

    /// Plies played, passes included.
    #[inline(always)]
    pub const fn ply(&self) -> u16 {
        self.ply
    }

    /// Black on even plies, White on odd ones.
    #[inline(always)]
    pub const fn side_to_move(&self) -> Color {
        if self.ply & 1 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Whether `color` has at least one move: some free square touches one
    /// of its pieces (every slide starts with a king step).
    #[inline(always)]
    pub const fn can_move(&self, color: Color) -> bool {
        self.pieces(color).neighbours().0 & self.free().0 != 0
    }

    /// Whether neither side can move.
    #[inline(always)]
    pub const fn is_game_over(&self) -> bool {
        let pieces = Bitboard(self.black.0 | self.white.0);
        pieces.neighbours().0 & self.free().0 == 0
    }

    /// The result by the current scores (final once the game is over).
    pub const fn outcome(&self) -> Outcome {
        Outcome::from_scores(self.black_score, self.white_score)
    }

    /// `color`'s points minus its opponent's.
    #[inline(always)]
    pub const fn margin(&self, color: Color) -> i32 {
        self.score(color) as i32 - self.score(color.opponent()) as i32
    }

    /// The winner of a finished game: `None` while it goes on or on a draw.
    pub fn winner(&self) -> Option<Color> {
        match (self.is_game_over(), self.outcome()) {
            (true, Outcome::Winner(c)) => Some(c),
            _ => None,
        }
    }

    /// The legal moves of the side to move; the pass alone when it has none
    /// (also when the game is over).
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let blockers = self.blockers();
        for from in self.pieces(self.side_to_move()) {
            for to in queen_moves(from, blockers) {
                list.push(Move::new(from, to));
            }
        }
        if list.is_empty() {
            list.push(Move::PASS);
        }
        list
    }

    /// The number of moves `color` has (0 when it must pass), without
    /// building a list.
    #[inline(always)]
    pub fn mobility(&self, color: Color) -> u32 {
        let blockers = self.blockers();
        self.pieces(color)
            .into_iter()
            .map(|from| queen_moves(from, blockers).count())
            .sum()
    }

    /// The length of [`Position::legal_moves`] (the pass counts as one),
    /// without building the list.
    #[inline(always)]
    pub fn legal_move_count(&self) -> u32 {
        self.mobility(self.side_to_move()).max(1)
    }

    /// A uniformly random legal move, without building a list: count each
    /// piece's targets, draw one index, and select that target bit (PDEP
    /// where the CPU has BMI2).
    #[inline]
    pub fn random_move(&self, rng: &mut Rng) -> Move {
        let blockers = self.blockers();
        let mut froms = [Square::A1; 4];
        let mut targets = [0u64; 4];
        let mut total = 0;
        for (i, from) in self
            .pieces(self.side_to_move())
            .into_iter()
            .take(4)
            .enumerate()
        {
            froms[i] = from;
            targets[i] = queen_moves(from, blockers).0;
            total += targets[i].count_ones();
        }
        if total == 0 {
            return Move::PASS;
        }
        let mut r = rng.below(total);
        let mut i = 0;
        while r >= targets[i].count_ones() {
            r -= targets[i].count_ones();
            i += 1;
        }
        Move::new(froms[i], Square::new_masked(select_bit(targets[i], r)))
    }

    /// Plays `m` for the side to move, without checking it (see
    /// [`Position::check_move`]). The pass only advances the ply.
    #[inline(always)]
    pub fn play(&mut self, m: Move) {
        if !m.is_pass() {
            let from = m.from().bitboard();
            let change = from | m.to().bitboard();
            if self.ply & 1 == 0 {
                self.black ^= change;
                self.black_score += 1;
            } else {
                self.white ^= change;
                self.white_score += 1;
            }
            self.holes |= from;
        }
        self.ply += 1;
    }

    /// Takes back `m`, the last move played: restores the position bit for bit.
    #[inline(always)]
    pub fn undo(&mut self, m: Move) {
        self.ply -= 1;
        if !m.is_pass() {
            let from = m.from().bitboard();
            let change = from | m.to().bitboard();
            if self.ply & 1 == 0 {
                self.black ^= change;
                self.black_score -= 1;
            } else {
                self.white ^= change;
                self.white_score -= 1;
            }
            self.holes ^= from;
        }
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::START
    }
}

/// The index of the `n`-th set bit of `bits` (n counted from 0, below
/// `bits.count_ones()`).
#[inline(always)]
pub(crate) fn select_bit(bits: u64, n: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: BMI2 is enabled for the whole build (cfg above), so PDEP
        // exists on every CPU this binary runs on.
        unsafe { core::arch::x86_64::_pdep_u64(1 << n, bits).trailing_zeros() }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        select_bit_portable(bits, n)
    }
}

/// [`select_bit`] without PDEP: drop the `n` lowest bits, take the next.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "bmi2"))))]
#[inline(always)]
pub(crate) fn select_bit_portable(mut bits: u64, n: u32) -> u32 {
    for _ in 0..n {
        bits &= bits - 1;
    }
    bits.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_is_small() {
        assert_eq!(core::mem::size_of::<Position>(), 32);
        assert_eq!(core::mem::size_of::<Move>(), 2);
    }

    #[test]
    fn start_has_56_moves() {
        let pos = Position::START;
        assert_eq!(pos.legal_moves().len(), 56);
        assert_eq!(pos.mobility(Color::Black), 56);
        assert_eq!(pos.mobility(Color::White), 56);
        assert!(!pos.is_game_over());
    }

    #[test]
    fn select_bit_agrees_with_portable() {
        let mut rng = Rng::new(7);
        for _ in 0..10_000 {
            let bits = rng.next_u64() & rng.next_u64();
            for n in 0..bits.count_ones() {
                assert_eq!(select_bit(bits, n), select_bit_portable(bits, n));
            }
        }
    }
}
