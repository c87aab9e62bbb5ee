//! Uniformly random games, the engine's speed benchmark and the Monte Carlo
//! players' playouts.

use crate::{Color, Outcome, Position, Rng};
use std::sync::atomic::{AtomicU64, Ordering};

/// Plays uniformly random legal moves from `pos` to the end of the game and
/// returns the final position.
#[inline]
pub fn random_game(mut pos: Position, rng: &mut Rng) -> Position {
    loop {
        let m = pos.random_move(rng);
        if m.is_pass() && !pos.can_move(pos.side_to_move().opponent()) {
            return pos;
        }
        pos.play(m);
    }
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

    fn merge(&mut self, other: &RandomGamesStats) {
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
    const CHUNK: u64 = 4096;
    let next = AtomicU64::new(0);
    let worker = || {
        let mut stats = RandomGamesStats::default();
        loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= games {
                return stats;
            }
            for i in start..(start + CHUNK).min(games) {
                let mut rng = Rng::for_game(seed, i);
                stats.add(&random_game(Position::START, &mut rng));
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
    fn totals_do_not_depend_on_threads() {
        let one = random_games(5000, 9, 1);
        assert_eq!(one, random_games(5000, 9, 3));
        assert_eq!(one.games, 5000);
        assert_eq!(one.black_wins + one.white_wins + one.draws, 5000);
        assert_ne!(one, random_games(5000, 10, 1));
    }
}
