//! Uniformly random games, the engine's speed benchmark and the Monte Carlo
//! players' playouts.

use crate::attacks::{queen_moves, shadow};
use crate::position::select_bit;
use crate::{Color, Move, Outcome, Position, Rng, Square};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Plays uniformly random legal moves from `pos` to the end of the game and
/// returns the final position.
#[inline]
pub fn random_game(pos: Position, rng: &mut Rng) -> Position {
    random_game_with(pos, rng, |_| {})
}

/// [`random_game`], calling `on_move` with each move played (passes too).
#[inline]
pub fn random_game_with(pos: Position, rng: &mut Rng, mut on_move: impl FnMut(Move)) -> Position {
    let mut game = Playout::new(pos);
    while let Some(m) = game.step(rng) {
        on_move(m);
    }
    game.pos
}

/// A game played by random moves, with the moves of all eight pieces kept
/// up to date: after a move to `t`, every other piece loses what `t` hides
/// ([`shadow`], one load) and only the moved piece needs a magic lookup.
#[derive(Clone, Debug)]
pub struct Playout {
    pos: Position,
    /// Black's pieces in slots 0..4, White's in 4..8.
    squares: [Square; 8],
    moves: [u64; 8],
}

impl Playout {
    /// Starts from `pos`.
    pub fn new(pos: Position) -> Playout {
        let blockers = pos.blockers();
        let mut squares = [Square::A1; 8];
        let mut moves = [0u64; 8];
        for (base, color) in [(0, Color::Black), (4, Color::White)] {
            for (k, sq) in pos.pieces(color).into_iter().take(4).enumerate() {
                squares[base + k] = sq;
                moves[base + k] = queen_moves(sq, blockers).0;
            }
        }
        Playout {
            pos,
            squares,
            moves,
        }
    }

    /// The position reached.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Plays one uniformly random legal move (or the pass) and returns it;
    /// `None` once the game is over. Pieces are taken in a fixed order.
    #[inline(always)]
    pub fn step(&mut self, rng: &mut Rng) -> Option<Move> {
        let count = |moves: &[u64]| -> u32 { moves.iter().map(|m| m.count_ones()).sum() };
        let base = if self.pos.side_to_move() == Color::Black {
            0
        } else {
            4
        };
        let ours = &self.moves[base..base + 4];
        let total = count(ours);
        if total == 0 {
            if count(&self.moves[4 - base..8 - base]) == 0 {
                return None;
            }
            self.pos.play(Move::PASS);
            return Some(Move::PASS);
        }
        // Which piece owns the r-th move: compare r with the running totals
        // (no data-dependent branch to mispredict).
        let r = rng.below(total);
        let c0 = ours[0].count_ones();
        let c01 = c0 + ours[1].count_ones();
        let c012 = c01 + ours[2].count_ones();
        let i = usize::from(r >= c0) + usize::from(r >= c01) + usize::from(r >= c012);
        let r = r - [0, c0, c01, c012][i];
        let piece = base + i;
        let to = Square::new_masked(select_bit(self.moves[piece], r));
        let m = Move::new(self.squares[piece], to);
        self.pos.play(m);
        for k in 0..8 {
            self.moves[k] &= !shadow(self.squares[k], to).0;
        }
        self.squares[piece] = to;
        self.moves[piece] = queen_moves(to, self.pos.blockers()).0;
        Some(m)
    }
}

/// `n` positions from seeded random games, at every stage of the game (one
/// game after another, every position of each): realistic boards for
/// benchmarks and tests rather than only the start.
pub fn sample_positions(n: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::START;
        while !pos.is_game_over() && out.len() < n {
            out.push(pos);
            pos.play(pos.random_move(&mut rng));
        }
    }
    out
}

/// Totals over many random games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RandomGamesStats {
    /// Games played.
    pub games: u64,
    /// Games Black won.
    pub black_wins: u64,
    /// Games White won.
    pub white_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Plies over all games, passes included.
    pub plies: u64,
}

impl RandomGamesStats {
    fn add(&mut self, end: &Position) {
        self.games += 1;
        self.plies += u64::from(end.ply());
        match end.outcome() {
            Outcome::Winner(Color::Black) => self.black_wins += 1,
            Outcome::Winner(Color::White) => self.white_wins += 1,
            Outcome::Draw => self.draws += 1,
        }
    }

    /// Adds another run's totals to these.
    pub fn merge(&mut self, other: &RandomGamesStats) {
        self.games += other.games;
        self.black_wins += other.black_wins;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.plies += other.plies;
    }
}

/// Plays `games` random games from the start. Game `i` uses
/// [`Rng::for_game`]`(seed, i)`, so the totals depend on the seed and the
/// number of games, never on `threads`.
pub fn random_games(games: u64, seed: u64, threads: usize) -> RandomGamesStats {
    random_games_range(0..games, seed, threads)
}

/// Plays the random games numbered `range` of a run seeded `seed`: the
/// totals of a run split into ranges, on as many machines, add up to those
/// of [`random_games`] over the whole count.
pub fn random_games_range(range: Range<u64>, seed: u64, threads: usize) -> RandomGamesStats {
    const CHUNK: u64 = 4096;
    let games = range.end;
    let next = AtomicU64::new(range.start);
    // Each worker steps LANES games in turn: their dependency chains are
    // independent, so the CPU overlaps one game's lookups with another's.
    const LANES: usize = 4;
    let worker = || {
        let mut stats = RandomGamesStats::default();
        loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= games {
                return stats;
            }
            let mut indices = start..(start + CHUNK).min(games);
            let mut lane = |i: u64| (Playout::new(Position::START), Rng::for_game(seed, i));
            let mut lanes: [Option<(Playout, Rng)>; LANES] =
                core::array::from_fn(|_| indices.next().map(&mut lane));
            while lanes.iter().any(Option::is_some) {
                for slot in lanes.iter_mut() {
                    if let Some((game, rng)) = slot {
                        if game.step(rng).is_none() {
                            stats.add(game.position());
                            *slot = indices.next().map(&mut lane);
                        }
                    }
                }
            }
        }
    };
    let mut total = RandomGamesStats::default();
    if threads <= 1 {
        total = worker();
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|_| s.spawn(worker)).collect();
            for h in handles {
                total.merge(&h.join().expect("random game workers do not panic"));
            }
        });
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_games_are_legal_to_the_end() {
        for seed in 0..300 {
            let mut rng = Rng::new(seed);
            let mut replay = Position::START;
            let end = random_game_with(Position::START, &mut rng, |m| {
                replay.try_play(m).expect("a legal move");
            });
            assert_eq!(replay, end);
            assert!(end.is_game_over());
        }
    }

    #[test]
    fn totals_do_not_depend_on_threads() {
        let one = random_games(5000, 9, 1);
        assert_eq!(one, random_games(5000, 9, 3));
        assert_eq!(one.games, 5000);
        assert_eq!(one.black_wins + one.white_wins + one.draws, 5000);
        assert_ne!(one, random_games(5000, 10, 1));
        let mut parts = random_games_range(0..1234, 9, 2);
        parts.merge(&random_games_range(1234..5000, 9, 1));
        assert_eq!(parts, one);
        assert_eq!(random_games_range(7..7, 9, 2), RandomGamesStats::default());
    }
}
