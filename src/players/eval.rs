//! The alpha-beta player's evaluation: a linear sum of named features with
//! weights that load from JSON.
//!
//! Features, each "side to move minus opponent":
//! * `score`: points so far;
//! * `mobility`: moves available now;
//! * `territory`: free squares the side reaches first, by flood fill in king
//!   steps through free squares (squares reached at the same time count for
//!   nobody);
//! * `frozen`: pieces of the opponent that cannot move, minus ours.
//!
//! When no free square is reachable by both sides the regions are separated
//! and each side can score at most the size of its own region more (and at
//! least one more if it can move): if those bounds fix the order of the final
//! scores the position is decided and scores as a win or loss; otherwise the
//! evaluation is the difference of the best final scores.

use crate::attacks::queen_moves;
use crate::{Bitboard, Position};
use serde::{Deserialize, Serialize};

/// A won game, in centipoints; results are ±`WIN` minus the plies to reach them.
pub const WIN: i32 = 30_000;
/// A win proven by bounds rather than played out: ±`BOUND_WIN` minus plies.
pub const BOUND_WIN: i32 = WIN - 500;
/// Scores beyond ±`DECIDED` are proven wins or losses, not estimates.
pub const DECIDED: i32 = WIN - 1_000;

/// Feature weights, in centipoints per unit of feature.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// Per point of score difference.
    pub score: f32,
    /// Per move of mobility difference.
    pub mobility: f32,
    /// Per square of territory difference.
    pub territory: f32,
    /// Per frozen piece (opponent's minus ours).
    pub frozen: f32,
}

impl Weights {
    /// The hand-set starting weights.
    pub const HAND: Weights = Weights {
        score: 100.0,
        mobility: 3.0,
        territory: 40.0,
        frozen: 30.0,
    };

    /// The weights in a fixed order: score, mobility, territory, frozen.
    pub const fn to_array(self) -> [f32; 4] {
        [self.score, self.mobility, self.territory, self.frozen]
    }

    /// The inverse of [`Weights::to_array`].
    pub const fn from_array(a: [f32; 4]) -> Weights {
        Weights {
            score: a[0],
            mobility: a[1],
            territory: a[2],
            frozen: a[3],
        }
    }

    /// Weights by name (`hand` or `tuned`) or from a JSON file.
    pub fn named_or_load(name_or_path: &str) -> Result<Weights, String> {
        match name_or_path {
            "hand" => Ok(Weights::HAND),
            "tuned" => Ok(TUNED),
            path => Weights::load(path),
        }
    }

    /// Reads weights from a JSON file such as
    /// `{"score": 100, "mobility": 3, "territory": 40, "frozen": 30}`.
    pub fn load(path: &str) -> Result<Weights, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let w: Weights = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        if w.to_array().iter().any(|x| !x.is_finite() || x.abs() > 1e5) {
            return Err(format!(
                "{path}: weights must be finite numbers below 100000"
            ));
        }
        Ok(w)
    }
}

include!(concat!(env!("OUT_DIR"), "/tuned_weights.rs"));

impl Default for Weights {
    /// The tuned weights, [`TUNED`].
    fn default() -> Weights {
        TUNED
    }
}

/// The raw features of a position, for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Score difference.
    pub score: i32,
    /// Mobility difference.
    pub mobility: i32,
    /// Territory difference.
    pub territory: i32,
    /// Opponent's frozen pieces minus ours.
    pub frozen: i32,
    /// Squares only we reach in one move minus squares only they reach (not
    /// weighted by the heuristic; an input of the network).
    pub reach: i32,
    /// Free squares left (not weighted by the heuristic; an input of the
    /// network).
    pub free: i32,
    /// Free squares of our region and theirs when separated.
    pub separated: Option<(u32, u32)>,
    /// Whether each side (us, them) can move at all.
    pub can_move: (bool, bool),
}

/// Squares reached first by `us` and by `them` in a king-step flood fill
/// through `free`, and whether any free square is reachable by both.
pub fn territory(us: Bitboard, them: Bitboard, free: Bitboard) -> (Bitboard, Bitboard, bool) {
    let mut front_us = us.neighbours() & free;
    let mut front_them = them.neighbours() & free;
    let mut contested = front_us & front_them;
    let mut ours = front_us & !front_them;
    let mut theirs = front_them & !front_us;
    let mut seen = front_us | front_them;
    while !(front_us | front_them).is_empty() {
        let next_us = front_us.neighbours() & free & !seen;
        let next_them = front_them.neighbours() & free & !seen;
        contested |= next_us & next_them;
        ours |= next_us & !next_them;
        theirs |= next_them & !next_us;
        seen |= next_us | next_them;
        front_us = next_us;
        front_them = next_them;
    }
    let shared = !contested.is_empty() || !(ours.neighbours() & theirs).is_empty();
    (ours, theirs, shared)
}

/// Computes the features of `pos` for its side to move.
pub fn features(pos: &Position) -> Features {
    let side = pos.side_to_move();
    let (us, them) = (pos.pieces(side), pos.pieces(side.opponent()));
    let blockers = pos.blockers();
    let free = !blockers;
    // Moves, frozen pieces and the squares reached in one move, per side.
    let side_moves = |pieces: Bitboard| {
        let (mut moves, mut frozen, mut reach) = (0i32, 0i32, Bitboard::EMPTY);
        for sq in pieces {
            let targets = queen_moves(sq, blockers);
            moves += targets.count() as i32;
            frozen += i32::from(targets.is_empty());
            reach |= targets;
        }
        (moves, frozen, reach)
    };
    let (our_moves, our_frozen, our_reach) = side_moves(us);
    let (their_moves, their_frozen, their_reach) = side_moves(them);
    let (ours, theirs, shared) = territory(us, them, free);
    Features {
        score: i32::from(pos.score(side)) - i32::from(pos.score(side.opponent())),
        mobility: our_moves - their_moves,
        territory: ours.count() as i32 - theirs.count() as i32,
        frozen: their_frozen - our_frozen,
        reach: (our_reach & !their_reach).count() as i32
            - (their_reach & !our_reach).count() as i32,
        free: free.count() as i32,
        separated: (!shared).then(|| (ours.count(), theirs.count())),
        can_move: (our_moves > 0, their_moves > 0),
    }
}

/// The evaluation of `pos` for its side to move, `ply` plies below the root
/// (decided positions prefer the nearer win).
pub fn evaluate(pos: &Position, weights: &Weights, ply: u32) -> i32 {
    let f = features(pos);
    if let Some((ours, theirs)) = f.separated {
        let (ours, theirs) = (ours as i32, theirs as i32);
        // We gain at most `ours` more points, they at most `theirs`; a side
        // that can move gains at least one.
        let (least_ours, least_theirs) = (i32::from(f.can_move.0), i32::from(f.can_move.1));
        if f.score + least_ours > theirs {
            return BOUND_WIN - ply as i32;
        }
        if f.score + ours < least_theirs {
            return -(BOUND_WIN - ply as i32);
        }
        return (weights.score * (f.score + ours - theirs) as f32) as i32;
    }
    let value = weights.score * f.score as f32
        + weights.mobility * f.mobility as f32
        + weights.territory * f.territory as f32
        + weights.frozen * f.frozen as f32;
    (value as i32).clamp(-DECIDED + 1, DECIDED - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_symmetric() {
        let f = features(&Position::START);
        assert_eq!((f.score, f.mobility, f.territory, f.frozen), (0, 0, 0, 0));
        assert_eq!((f.reach, f.free), (0, 56));
        assert_eq!(f.can_move, (true, true));
        assert_eq!(f.separated, None);
    }

    #[test]
    fn separated_regions_are_estimated_or_decided() {
        // Ranks 6-8 are Black's, ranks 1-4 White's: 20 free squares to 28.
        let pos: Position = "b6b/8/b6b/xxxxxxxx/w6w/8/8/w6w b 4 4 8".parse().unwrap();
        assert_eq!(features(&pos).separated, Some((20, 28)));
        assert_eq!(evaluate(&pos, &Weights::HAND, 0), -800);
        // Black has 4 squares left and is 6 points behind: lost for sure.
        let lost: Position = "bb4bb/xxxxxxxx/8/8/w6w/8/8/w6w b 1 7 8".parse().unwrap();
        assert_eq!(features(&lost).separated, Some((4, 44)));
        assert_eq!(evaluate(&lost, &Weights::HAND, 3), -(BOUND_WIN - 3));
    }

    #[test]
    fn weights_load_and_reject() {
        let dir = std::env::temp_dir().join(format!("yolah-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("w.json");
        std::fs::write(
            &good,
            r#"{"score": 1, "mobility": 2, "territory": 3, "frozen": 4}"#,
        )
        .unwrap();
        let w = Weights::load(good.to_str().unwrap()).unwrap();
        assert_eq!(w.territory, 3.0);
        let bad = dir.join("bad.json");
        std::fs::write(&bad, r#"{"score": 1, "mobilty": 2}"#).unwrap();
        assert!(Weights::load(bad.to_str().unwrap())
            .unwrap_err()
            .contains("mobilty"));
        assert!(Weights::load("/no/such/weights.json")
            .unwrap_err()
            .contains("cannot read"));
    }
}
