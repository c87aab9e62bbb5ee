//! The small types layer: [`Square`], [`Bitboard`] and [`Direction`].
//!
//! These types are shared by the magic generator, the `yolah` build script and
//! the `yolah` runtime, so the board geometry is written exactly once.
//!
//! Squares are numbered from a1 = 0 to h8 = 63, rank by rank:
//!
//! ```text
//! 8 | 56 57 58 59 60 61 62 63
//! 7 | 48 49 50 51 52 53 54 55
//! 6 | 40 41 42 43 44 45 46 47
//! 5 | 32 33 34 35 36 37 38 39
//! 4 | 24 25 26 27 28 29 30 31
//! 3 | 16 17 18 19 20 21 22 23
//! 2 |  8  9 10 11 12 13 14 15
//! 1 |  0  1  2  3  4  5  6  7
//!   +------------------------
//!      a  b  c  d  e  f  g  h
//! ```

use core::fmt;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// One of the 64 squares of the board, a1 = 0 … h8 = 63.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// a1, the lower left corner (also the square of the pass move `a1:a1`).
    pub const A1: Square = Square(0);
    /// h8, the upper right corner.
    pub const H8: Square = Square(63);

    /// The square with index `index` (0 = a1, 63 = h8), if it is on the board.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with index `index & 63`: never fails, for hot paths whose
    /// index is known to be in range.
    #[inline(always)]
    pub const fn new_masked(index: u32) -> Square {
        Square((index & 63) as u8)
    }

    /// The square on `file` (0 = a … 7 = h) and `rank` (0 = rank 1 … 7 = rank 8).
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// All 64 squares from a1 to h8.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..64).map(Square)
    }

    /// The index of the square, 0 (a1) to 63 (h8).
    #[inline(always)]
    pub const fn index(self) -> usize {
        // Always below 64; the mask tells the compiler so, which removes
        // bounds checks from table lookups.
        (self.0 & 63) as usize
    }

    /// The file, 0 (a) to 7 (h).
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// The rank, 0 (rank 1) to 7 (rank 8).
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The bitboard holding only this square.
    #[inline(always)]
    pub const fn bitboard(self) -> Bitboard {
        Bitboard(1 << self.0)
    }

    /// The square one step in direction `dir`, or `None` off the board
    /// (never wrapping around from the h-file to the a-file).
    pub const fn offset(self, dir: Direction) -> Option<Square> {
        let (df, dr) = dir.file_rank_delta();
        let file = self.file() as i8 + df;
        let rank = self.rank() as i8 + dr;
        if file < 0 || file > 7 || rank < 0 || rank > 7 {
            None
        } else {
            Some(Square((rank * 8 + file) as u8))
        }
    }

    /// The name of the square, such as `"d5"`.
    pub const fn name(self) -> [u8; 2] {
        [b'a' + self.file(), b'1' + self.rank()]
    }

    /// Parses a square name such as `"d5"` (lower case file, then rank).
    pub fn parse(text: &str) -> Option<Square> {
        match text.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Square::from_coords(f - b'a', r - b'1'),
            _ => None,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [file, rank] = self.name();
        write!(f, "{}{}", file as char, rank as char)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// One of the eight directions a queen slides in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards rank 8.
    North,
    /// Towards rank 1.
    South,
    /// Towards the h-file.
    East,
    /// Towards the a-file.
    West,
    /// Towards h8.
    NorthEast,
    /// Towards a8.
    NorthWest,
    /// Towards h1.
    SouthEast,
    /// Towards a1.
    SouthWest,
}

impl Direction {
    /// The four orthogonal (rook-like) directions.
    pub const ORTHOGONAL: [Direction; 4] = [
        Direction::North,
        Direction::South,
        Direction::East,
        Direction::West,
    ];
    /// The four diagonal (bishop-like) directions.
    pub const DIAGONAL: [Direction; 4] = [
        Direction::NorthEast,
        Direction::NorthWest,
        Direction::SouthEast,
        Direction::SouthWest,
    ];

    /// The change of (file, rank) for one step in this direction.
    pub const fn file_rank_delta(self) -> (i8, i8) {
        match self {
            Direction::North => (0, 1),
            Direction::South => (0, -1),
            Direction::East => (1, 0),
            Direction::West => (-1, 0),
            Direction::NorthEast => (1, 1),
            Direction::NorthWest => (-1, 1),
            Direction::SouthEast => (1, -1),
            Direction::SouthWest => (-1, -1),
        }
    }
}

/// A set of squares, one bit per square (bit 0 = a1, bit 63 = h8).
///
/// ```text
/// Bitboard::FILE_A | Bitboard::RANK_1
///
/// 8 | x . . . . . . .
/// 7 | x . . . . . . .
/// 6 | x . . . . . . .
/// 5 | x . . . . . . .
/// 4 | x . . . . . . .
/// 3 | x . . . . . . .
/// 2 | x . . . . . . .
/// 1 | x x x x x x x x
///   +----------------
///     a b c d e f g h
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The a-file.
    pub const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
    /// The h-file.
    pub const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);
    /// Rank 1.
    pub const RANK_1: Bitboard = Bitboard(0xff);
    /// Rank 8.
    pub const RANK_8: Bitboard = Bitboard(0xff << 56);

    /// The file `file` (0 = a … 7 = h).
    pub const fn file(file: u8) -> Bitboard {
        Bitboard(Bitboard::FILE_A.0 << (file & 7))
    }

    /// The rank `rank` (0 = rank 1 … 7 = rank 8).
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(Bitboard::RANK_1.0 << (8 * (rank & 7)))
    }

    /// Whether no square is in the set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & sq.bitboard().0 != 0
    }

    /// The number of squares in the set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Every square shifted one step in `dir`; squares that would leave the
    /// board (or wrap around a side) disappear.
    #[inline(always)]
    pub const fn shift(self, dir: Direction) -> Bitboard {
        let not_a = !Bitboard::FILE_A.0;
        let not_h = !Bitboard::FILE_H.0;
        let b = self.0;
        Bitboard(match dir {
            Direction::North => b << 8,
            Direction::South => b >> 8,
            Direction::East => (b & not_h) << 1,
            Direction::West => (b & not_a) >> 1,
            Direction::NorthEast => (b & not_h) << 9,
            Direction::NorthWest => (b & not_a) << 7,
            Direction::SouthEast => (b & not_h) >> 7,
            Direction::SouthWest => (b & not_a) >> 9,
        })
    }

    /// The squares one king step away from some square of the set (a member
    /// is included only when it neighbours another member).
    #[inline(always)]
    pub const fn neighbours(self) -> Bitboard {
        // A row of three around each square, then that row moved up and down.
        let not_a = !Bitboard::FILE_A.0;
        let not_h = !Bitboard::FILE_H.0;
        let b = self.0;
        let sides = ((b & not_h) << 1) | ((b & not_a) >> 1);
        let row = b | sides;
        Bitboard(sides | (row << 8) | (row >> 8))
    }

    /// The set mirrored top to bottom: rank 1 ↔ rank 8 (a1 ↔ a8).
    #[inline(always)]
    pub const fn flip_vertical(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }

    /// The set mirrored left to right: file a ↔ file h (a1 ↔ h1).
    #[inline(always)]
    pub const fn flip_horizontal(self) -> Bitboard {
        // Swap neighbouring files, then pairs of files, then halves.
        const K1: u64 = 0x5555_5555_5555_5555;
        const K2: u64 = 0x3333_3333_3333_3333;
        const K4: u64 = 0x0f0f_0f0f_0f0f_0f0f;
        let mut b = self.0;
        b = ((b >> 1) & K1) | ((b & K1) << 1);
        b = ((b >> 2) & K2) | ((b & K2) << 2);
        b = ((b >> 4) & K4) | ((b & K4) << 4);
        Bitboard(b)
    }

    /// The set mirrored in the a1-h8 diagonal: file ↔ rank (b1 ↔ a2).
    #[inline(always)]
    pub const fn flip_diagonal(self) -> Bitboard {
        // Three delta swaps: 4x4 blocks, 2x2 blocks, single squares.
        const K1: u64 = 0x5500_5500_5500_5500;
        const K2: u64 = 0x3333_0000_3333_0000;
        const K4: u64 = 0x0f0f_0f0f_0000_0000;
        let mut b = self.0;
        let mut t = K4 & (b ^ (b << 28));
        b ^= t ^ (t >> 28);
        t = K2 & (b ^ (b << 14));
        b ^= t ^ (t >> 14);
        t = K1 & (b ^ (b << 7));
        b ^= t ^ (t >> 7);
        Bitboard(b)
    }

    /// Iterates over the squares of the set from a1 to h8.
    #[inline(always)]
    pub const fn iter(self) -> Squares {
        Squares(self.0)
    }
}

impl fmt::Debug for Bitboard {
    /// Draws the set as a board, rank 8 on top.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard(0x{:016x})", self.0)?;
        for rank in (0..8).rev() {
            write!(f, "{} |", rank + 1)?;
            for file in 0..8 {
                let bit = self.0 >> (rank * 8 + file) & 1;
                write!(f, " {}", if bit == 1 { 'x' } else { '.' })?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  +----------------")?;
        write!(f, "    a b c d e f g h")
    }
}

macro_rules! bit_ops {
    ($($trait:ident $fn:ident $assign_trait:ident $assign_fn:ident $op:tt;)*) => {$(
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign_fn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    )*};
}

bit_ops! {
    BitAnd bitand BitAndAssign bitand_assign &;
    BitOr bitor BitOrAssign bitor_assign |;
    BitXor bitxor BitXorAssign bitxor_assign ^;
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter()
            .fold(Bitboard::EMPTY, |bb, sq| bb | sq.bitboard())
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    #[inline(always)]
    fn into_iter(self) -> Squares {
        self.iter()
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest first.
#[derive(Clone, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::new_masked(self.0.trailing_zeros());
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            let name = sq.to_string();
            assert_eq!(Square::parse(&name), Some(sq));
        }
        assert_eq!(Square::parse("d5").map(Square::index), Some(35));
        for bad in ["", "a", "a0", "a9", "i1", "A1", "a1 ", "a10"] {
            assert_eq!(Square::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn shifts_match_offsets() {
        let dirs = Direction::ORTHOGONAL.iter().chain(&Direction::DIAGONAL);
        for &dir in dirs {
            for sq in Square::all() {
                let expected = sq.offset(dir).map_or(Bitboard::EMPTY, Square::bitboard);
                assert_eq!(sq.bitboard().shift(dir), expected, "{sq} {dir:?}");
            }
        }
    }

    #[test]
    fn flips_move_every_square_where_they_should() {
        for sq in Square::all() {
            let (f, r) = (sq.file(), sq.rank());
            let at = |file, rank| Square::from_coords(file, rank).unwrap().bitboard();
            let b = sq.bitboard();
            assert_eq!(b.flip_vertical(), at(f, 7 - r), "{sq}");
            assert_eq!(b.flip_horizontal(), at(7 - f, r), "{sq}");
            assert_eq!(b.flip_diagonal(), at(r, f), "{sq}");
        }
        // Flips act square by square, so on sets too.
        let set = Bitboard(0x0123_4567_89ab_cdef);
        let by_squares: Bitboard = set
            .iter()
            .map(|s| s.bitboard().flip_diagonal())
            .fold(Bitboard::EMPTY, |a, b| a | b);
        assert_eq!(set.flip_diagonal(), by_squares);
        assert_eq!(set.flip_horizontal().flip_horizontal(), set);
    }

    #[test]
    fn neighbours_are_king_steps() {
        let dirs: Vec<Direction> = Direction::ORTHOGONAL
            .iter()
            .chain(&Direction::DIAGONAL)
            .copied()
            .collect();
        let slow = |bb: Bitboard| -> Bitboard {
            bb.iter()
                .flat_map(|sq| dirs.iter().filter_map(move |&d| sq.offset(d)))
                .collect()
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bb = Bitboard(x & x.rotate_left(17) & x.rotate_left(31));
            assert_eq!(bb.neighbours(), slow(bb), "{bb:?}");
        }
    }
}
