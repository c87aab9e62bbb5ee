//! A naive reference implementation of the rules, written independently of
//! the engine: a board of 64 cells and square-by-square ray walking.

#![allow(dead_code)]

use yolah::{Color, Move, Position, Square};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cell {
    Empty,
    Hole,
    Piece(Color),
}

/// The rules on an array of cells.
#[derive(Clone, Debug)]
pub struct NaiveGame {
    pub cells: [Cell; 64],
    pub scores: [u32; 2],
    pub ply: u32,
}

const STEPS: [(i32, i32); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

impl NaiveGame {
    pub fn new() -> NaiveGame {
        let mut cells = [Cell::Empty; 64];
        for name in ["a1", "e4", "d5", "h8"] {
            cells[Square::parse(name).unwrap().index()] = Cell::Piece(Color::Black);
        }
        for name in ["h1", "d4", "e5", "a8"] {
            cells[Square::parse(name).unwrap().index()] = Cell::Piece(Color::White);
        }
        NaiveGame {
            cells,
            scores: [0, 0],
            ply: 0,
        }
    }

    pub fn side(&self) -> Color {
        if self.ply.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Real moves (no pass) of `color`, sorted.
    pub fn moves_of(&self, color: Color) -> Vec<Move> {
        let mut out = Vec::new();
        for from in 0..64usize {
            if self.cells[from] != Cell::Piece(color) {
                continue;
            }
            let (f, r) = ((from % 8) as i32, (from / 8) as i32);
            for (df, dr) in STEPS {
                let (mut x, mut y) = (f + df, r + dr);
                while (0..8).contains(&x) && (0..8).contains(&y) {
                    let to = (y * 8 + x) as usize;
                    if self.cells[to] != Cell::Empty {
                        break;
                    }
                    let sq = |i: usize| Square::new(i as u8).unwrap();
                    out.push(Move::new(sq(from), sq(to)));
                    x += df;
                    y += dr;
                }
            }
        }
        out.sort();
        out
    }

    /// Legal moves of the side to move: the pass alone when it has none.
    pub fn legal_moves(&self) -> Vec<Move> {
        let moves = self.moves_of(self.side());
        if moves.is_empty() {
            vec![Move::PASS]
        } else {
            moves
        }
    }

    pub fn game_over(&self) -> bool {
        self.moves_of(Color::Black).is_empty() && self.moves_of(Color::White).is_empty()
    }

    pub fn play(&mut self, m: Move) {
        if !m.is_pass() {
            let color = self.side();
            self.cells[m.from().index()] = Cell::Hole;
            self.cells[m.to().index()] = Cell::Piece(color);
            self.scores[color as usize] += 1;
        }
        self.ply += 1;
    }

    /// Perft by the same convention as the engine, without any bulk counting.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 || self.game_over() {
            return 1;
        }
        self.legal_moves()
            .into_iter()
            .map(|m| {
                let mut child = self.clone();
                child.play(m);
                child.perft(depth - 1)
            })
            .sum()
    }

    /// Whether the engine position shows the same board, scores and ply.
    pub fn agrees_with(&self, pos: &Position) -> bool {
        (0..64).all(|i| {
            let sq = Square::new(i as u8).unwrap();
            let cell = if pos.pieces(Color::Black).contains(sq) {
                Cell::Piece(Color::Black)
            } else if pos.pieces(Color::White).contains(sq) {
                Cell::Piece(Color::White)
            } else if pos.holes().contains(sq) {
                Cell::Hole
            } else {
                Cell::Empty
            };
            cell == self.cells[i]
        }) && self.scores
            == [
                u32::from(pos.score(Color::Black)),
                u32::from(pos.score(Color::White)),
            ]
            && self.ply == u32::from(pos.ply())
    }
}
