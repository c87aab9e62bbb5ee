//! What a search evaluates with: the [`Evaluator`] interface, the features of
//! a position, the rule of separated regions, and the heuristic evaluation
//! (a linear sum of the features with weights that load from JSON).
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
//! scores the position is decided and scores as a win or loss
//! ([`decided_by_regions`], used by every evaluator); otherwise the
//! heuristic's evaluation is the difference of the best final scores.

pub use crate::score::{BOUND_WIN, DECIDED, WIN};
use serde::{Deserialize, Serialize};
use std::fmt;
use yolah::attacks::queen_moves;
use yolah::file::{read_text_limited, FileError};
use yolah::{Bitboard, Move, Position};

/// What alpha-beta evaluates with: the static value of a position, and any
/// state carried down the tree with it (a network's accumulators, say).
pub trait Evaluator: Send + Sync {
    /// Carried from a position to its children.
    type State: Clone;
    /// The state of the search's root.
    fn root_state(&self, pos: &Position) -> Self::State;
    /// The state after `m` is played in `pos` (whose state is `state`).
    fn child_state(&self, state: &Self::State, pos: &Position, m: Move) -> Self::State;
    /// The value of `pos` for its side to move, `ply` plies below the root, in
    /// centipoints (see [`crate::score`]).
    fn evaluate(&self, pos: &Position, state: &Self::State, ply: u32) -> i32;
}

/// The linear heuristic carries nothing down the tree.
impl Evaluator for Weights {
    type State = ();
    fn root_state(&self, _: &Position) {}
    fn child_state(&self, _: &(), _: &Position, _: Move) {}
    fn evaluate(&self, pos: &Position, _: &(), ply: u32) -> i32 {
        evaluate(pos, self, ply)
    }
}

/// The largest weights file [`Weights::load`] reads.
pub const MAX_WEIGHTS_BYTES: u64 = 64 << 10;

/// Why weights cannot be loaded.
#[derive(Debug)]
pub enum WeightsError {
    /// The file cannot be read (or is too large, or not text).
    File(FileError),
    /// Not a JSON object of the four weights.
    Json {
        /// The file.
        path: String,
        /// What the parser said.
        error: serde_json::Error,
    },
    /// A weight is not a finite number below 100,000 in size.
    OutOfRange {
        /// The file.
        path: String,
    },
    /// Neither a name of weights nor a file (`weights=tunde`).
    Unknown {
        /// The name or file given.
        name: String,
    },
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::File(e) => write!(f, "{e}"),
            WeightsError::Json { path, error } => write!(f, "{path}: {error}"),
            WeightsError::OutOfRange { path } => {
                write!(f, "{path}: weights must be finite numbers below 100000")
            }
            WeightsError::Unknown { name } => write!(
                f,
                "no weights are named {name:?} (the names are tuned and hand) and no file has that name"
            ),
        }
    }
}

impl std::error::Error for WeightsError {}

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
    pub fn named_or_load(name_or_path: &str) -> Result<Weights, WeightsError> {
        match name_or_path {
            "hand" => Ok(Weights::HAND),
            "tuned" => Ok(TUNED),
            path if !std::path::Path::new(path).exists() => Err(WeightsError::Unknown {
                name: path.to_string(),
            }),
            path => Weights::load(path),
        }
    }

    /// Reads weights from a JSON file such as
    /// `{"score": 100, "mobility": 3, "territory": 40, "frozen": 30}`.
    pub fn load(path: &str) -> Result<Weights, WeightsError> {
        let text = read_text_limited(path, MAX_WEIGHTS_BYTES).map_err(WeightsError::File)?;
        let w: Weights = serde_json::from_str(&text).map_err(|error| WeightsError::Json {
            path: path.to_string(),
            error,
        })?;
        if w.to_array().iter().any(|x| !x.is_finite() || x.abs() > 1e5) {
            return Err(WeightsError::OutOfRange {
                path: path.to_string(),
            });
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

/// The side to move's territory, the opponent's (as [`territory`] finds
/// them), and the squares each reaches in one move: the maps behind the
/// territory and reach features, square by square.
pub fn maps(pos: &Position) -> [Bitboard; 4] {
    features_and_maps(pos).1
}

/// Computes the features of `pos` for its side to move.
#[inline]
pub fn features(pos: &Position) -> Features {
    features_and_maps(pos).0
}

/// The features of `pos` and its [`maps`], computed together.
#[inline]
pub fn features_and_maps(pos: &Position) -> (Features, [Bitboard; 4]) {
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
    let features = Features {
        score: pos.margin(side),
        mobility: our_moves - their_moves,
        territory: ours.count() as i32 - theirs.count() as i32,
        frozen: their_frozen - our_frozen,
        reach: (our_reach & !their_reach).count() as i32
            - (their_reach & !our_reach).count() as i32,
        free: free.count() as i32,
        separated: (!shared).then(|| (ours.count(), theirs.count())),
        can_move: (our_moves > 0, their_moves > 0),
    };
    (features, [ours, theirs, our_reach, their_reach])
}

/// The rule of separated regions: when no free square is reachable by both
/// sides and the bounds on what each can still score fix the order of the
/// final scores, the proven value of `pos` for its side to move
/// (±([`BOUND_WIN`] − `ply`)); `None` when the regions touch or the bounds
/// leave the result open.
///
/// Each side scores at most the free squares of its own region more, and at
/// least one more if it can move at all.
pub fn decided_by_regions(f: &Features, ply: u32) -> Option<i32> {
    let (ours, theirs) = f.separated?;
    let (ours, theirs) = (ours as i32, theirs as i32);
    let (least_ours, least_theirs) = (i32::from(f.can_move.0), i32::from(f.can_move.1));
    if f.score + least_ours > theirs {
        Some(BOUND_WIN - ply as i32)
    } else if f.score + ours < least_theirs {
        Some(-(BOUND_WIN - ply as i32))
    } else {
        None
    }
}

/// The evaluation of `pos` for its side to move, `ply` plies below the root
/// (decided positions prefer the nearer win).
pub fn evaluate(pos: &Position, weights: &Weights, ply: u32) -> i32 {
    let f = features(pos);
    if let Some((ours, theirs)) = f.separated {
        return decided_by_regions(&f, ply).unwrap_or_else(|| {
            (weights.score * (f.score + ours as i32 - theirs as i32) as f32) as i32
        });
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
    fn features_are_the_same_in_every_image() {
        let mut rng = yolah::Rng::new(11);
        for _ in 0..50 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                let f = features(&pos);
                for s in yolah::Symmetry::ALL {
                    assert_eq!(features(&pos.transformed(s)), f);
                }
                pos.play(pos.random_move(&mut rng));
            }
        }
    }

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
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("w.json");
        std::fs::write(
            &good,
            r#"{"score": 1, "mobility": 2, "territory": 3, "frozen": 4}"#,
        )
        .unwrap();
        let w = Weights::load(good.to_str().unwrap()).unwrap();
        assert_eq!(w.territory, 3.0);
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, r#"{"score": 1, "mobilty": 2}"#).unwrap();
        assert!(Weights::load(bad.to_str().unwrap())
            .unwrap_err()
            .to_string()
            .contains("mobilty"));
        assert!(Weights::load("/no/such/weights.json")
            .unwrap_err()
            .to_string()
            .contains("cannot read"));
        let e = Weights::load("/dev/zero").unwrap_err().to_string();
        assert_eq!(e, "/dev/zero is larger than 64 KiB");
        assert_eq!(Weights::named_or_load("hand").unwrap(), Weights::HAND);
        let e = Weights::named_or_load("tunde").unwrap_err().to_string();
        assert_eq!(
            e,
            r#"no weights are named "tunde" (the names are tuned and hand) and no file has that name"#
        );
        let e = Weights::named_or_load("/dev/zero").unwrap_err().to_string();
        assert_eq!(e, "/dev/zero is larger than 64 KiB");
    }
}
