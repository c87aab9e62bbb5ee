//! The table of a tournament: ratings anchored at one player, forfeits and
//! the record of every pair, as text or JSON. `yolah tournament`, `yolah
//! merge`, the Python module and `yolah-ray` all print this one table.

use crate::ratings::{rate, GameResult, Rating};
use crate::tournament::{pairs, GameLine};
use serde::Serialize;
use serde_json::json;

/// A pair's results, from the first player's side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PairRecord {
    /// First player (index).
    pub a: usize,
    /// Second player (index).
    pub b: usize,
    /// Wins of `a`.
    pub a_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Wins of `b`.
    pub b_wins: u64,
}

/// Where a tournament stands after some of its games.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// The player specs, in the tournament's order.
    pub players: Vec<String>,
    /// The index of the player rated 0.
    pub anchor: usize,
    /// Games counted.
    pub games: usize,
    /// Each player's rating, in the players' order.
    pub ratings: Vec<Rating>,
    /// Games each player lost by forfeit.
    pub forfeits: Vec<u64>,
    /// Every pair's record, pairs in [`pairs`] order.
    pub pairs: Vec<PairRecord>,
}

impl Standings {
    /// The standings of `games` between `players`, rated with player
    /// `anchor` (an index the caller has checked, as
    /// [`crate::tournament::Settings::anchor`] does) at 0.
    pub fn new(players: &[String], games: &[GameLine], anchor: usize) -> Standings {
        let n = players.len();
        let results: Vec<GameResult> = games
            .iter()
            .map(|g| GameResult {
                a: g.pair.0,
                b: g.pair.1,
                points: g.a_points,
            })
            .collect();
        let mut forfeits = vec![0; n];
        for i in games.iter().filter_map(GameLine::forfeited_by) {
            if let Some(c) = forfeits.get_mut(i) {
                *c += 1;
            }
        }
        let records = pairs(n)
            .into_iter()
            .map(|(a, b)| {
                let of = |v: f64| {
                    games
                        .iter()
                        .filter(|g| g.pair == (a, b) && g.a_points == v)
                        .count() as u64
                };
                PairRecord {
                    a,
                    b,
                    a_wins: of(1.0),
                    draws: of(0.5),
                    b_wins: of(0.0),
                }
            })
            .collect();
        Standings {
            players: players.to_vec(),
            anchor,
            games: games.len(),
            ratings: rate(n, &results, anchor),
            forfeits,
            pairs: records,
        }
    }

    /// The players' indices, best rated first.
    pub fn ranking(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by(|&a, &b| self.ratings[b].elo.total_cmp(&self.ratings[a].elo));
        order
    }

    /// One JSON object: `games`, `anchor`, `ratings` (best first: `rank`,
    /// `player`, `elo`, `ci95`, `games`, `points`, `forfeits`) and `pairs`
    /// (`a`, `b`, `a_wins`, `draws`, `b_wins`).
    pub fn to_json(&self) -> serde_json::Value {
        let players = &self.players;
        let table: Vec<_> = self
            .ranking()
            .iter()
            .enumerate()
            .map(|(rank, &i)| {
                let r = &self.ratings[i];
                json!({"rank": rank + 1, "player": players[i], "elo": r.elo, "ci95": r.ci95,
                       "games": r.games, "points": r.points, "forfeits": self.forfeits[i]})
            })
            .collect();
        let pairs: Vec<_> = self
            .pairs
            .iter()
            .map(|p| {
                json!({"a": players[p.a], "b": players[p.b], "a_wins": p.a_wins,
                       "draws": p.draws, "b_wins": p.b_wins})
            })
            .collect();
        json!({"games": self.games, "anchor": players[self.anchor], "ratings": table, "pairs": pairs})
    }

    /// The table in words: a row per player, best first (with a forfeits
    /// column when someone forfeited), the anchor, and a line per pair.
    pub fn text(&self) -> String {
        let players = &self.players;
        let width = players.iter().map(String::len).max().unwrap_or(6).max(6);
        let any_forfeit = self.forfeits.iter().any(|&f| f > 0);
        let mut text = format!(
            "{:>4}  {:<width$}  {:>6}  {:>5}  {:>6}  {:>7}{}\n",
            "rank",
            "player",
            "elo",
            "±95%",
            "games",
            "points",
            if any_forfeit { "  forfeits" } else { "" }
        );
        for (rank, &i) in self.ranking().iter().enumerate() {
            let r = &self.ratings[i];
            text += &format!(
                "{:>4}  {:<width$}  {:>+6.0}  {:>5.0}  {:>6}  {:>7.1}{}\n",
                rank + 1,
                players[i],
                r.elo,
                r.ci95,
                r.games,
                r.points,
                if any_forfeit {
                    format!("  {:>8}", self.forfeits[i])
                } else {
                    String::new()
                }
            );
        }
        text += &format!(
            "\n{} games; {} anchored at 0\n",
            self.games, players[self.anchor]
        );
        for p in &self.pairs {
            text += &format!(
                "{} vs {}: +{} ={} -{}\n",
                players[p.a], players[p.b], p.a_wins, p.draws, p.b_wins
            );
        }
        text
    }
}
