//! # yolah-players
//!
//! Computer players for Yolah behind one trait, [`Player`], each built from
//! a spec string `NAME[:key=value,…]` by [`from_spec`].
//!
//! | name        | plays                                   | budget keys                     |
//! |-------------|-----------------------------------------|---------------------------------|
//! | `random`    | a uniform random legal move             |                                 |
//! | `mc`        | flat Monte Carlo, best mean playout     | `playouts=`, `time=`            |
//! | `mcts`      | Monte Carlo tree search with UCT        | `iterations=`, `time=`, `c=`, `eval=` |
//! | `alphabeta` | negamax alpha-beta, heuristic evaluation| `depth=`, `nodes=`, `time=`, `threads=`, `weights=` |
//! | `nn`        | the same search, network evaluation     | `depth=`, `nodes=`, `time=`, `threads=`, `net=`     |
//!
//! `threads=N` searches on N threads (lazy SMP on one shared table). With a
//! node or time budget, `alphabeta` and `nn` hand endgames of few free
//! squares to the exact [`solve`]r first, and play a proven win or draw.
//!
//! Every player takes `seed=`; with a count budget (playouts, iterations,
//! depth, nodes) and one thread the same seed plays the same game. Times are
//! written `100ms`, `2s` or `1.5s`.
//!
//! ```
//! use yolah::Position;
//! use yolah_players::from_spec;
//!
//! let mut player = from_spec("mcts:iterations=2000,seed=1").unwrap();
//! let m = player.choose_move(&Position::START);
//! assert!(Position::START.legal_moves().contains(m));
//! let typo = from_spec("mcts:iteratoins=5").err().unwrap();
//! assert!(typo.to_string().contains("iteratoins"));
//! ```
//!
//! Layers inside the crate point one way: [`score`] and [`eval`] (what a
//! position is worth) below [`nn`] (a network that is an [`eval::Evaluator`])
//! below the searches ([`alphabeta`], [`mcts`], [`mc`], [`random`]).
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod alphabeta;
mod budget;
pub mod eval;
pub mod external;
pub mod mc;
pub mod mcts;
pub mod nn;
pub mod random;
pub mod score;
pub mod solve;
mod spec;
mod table;

pub(crate) use budget::Clock;
pub use budget::{Budget, GameClock, Stop};
pub use score::Score;
pub(crate) use spec::Spec;
pub use spec::{
    available_cores, from_spec, parse_duration, with_default_threads, with_seed, SpecError,
    PLAYER_NAMES,
};

use yolah::{Move, Position};

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The move to play.
    pub best_move: Move,
    /// The player's value of the position for the side to move.
    pub score: Score,
    /// Depth reached (alpha-beta).
    pub depth: Option<u32>,
    /// Iterations or playouts run (Monte Carlo players).
    pub iterations: Option<u64>,
    /// Positions visited.
    pub nodes: u64,
    /// Wall time of the search.
    pub seconds: f64,
    /// The expected line, best move first.
    pub pv: Vec<Move>,
}

/// One search's settings beyond the position: a budget for this search
/// only, the flag that stops it, and who hears of its progress.
pub struct Search<'a> {
    /// This search's budget instead of the player's own. Monte Carlo
    /// players have no depth: they keep their own budget when given one.
    pub budget: Option<Budget>,
    /// Raised to stop the search early.
    pub stop: &'a Stop,
    /// Called as the search goes: after each completed depth (alpha-beta),
    /// about every 100 ms (Monte Carlo players).
    pub progress: Option<&'a mut dyn FnMut(&Analysis)>,
    /// The game clock, when the game has one. An external engine is sent
    /// the clock and decides; our players get `budget` from the caller.
    pub clock: Option<GameClock>,
}

impl<'a> Search<'a> {
    /// The player's own budget, `stop`, nobody told of progress.
    pub fn new(stop: &'a Stop) -> Search<'a> {
        Search {
            budget: None,
            stop,
            progress: None,
            clock: None,
        }
    }

    /// How often a Monte Carlo search reports its progress.
    pub(crate) const REPORT_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

    /// The budget of a Monte Carlo search whose own budget is `own`: this
    /// search's, except a depth, which means nothing to Monte Carlo.
    pub(crate) fn monte_carlo_budget(&self, own: Budget) -> Budget {
        match self.budget {
            Some(Budget::Depth(_)) | None => own,
            Some(b) => b,
        }
    }

    /// Tells whoever listens how the search stands.
    pub(crate) fn report(&mut self, analysis: &Analysis) {
        if let Some(progress) = self.progress.as_mut() {
            progress(analysis);
        }
    }
}

/// Why a player lost a game by breaking the rules of play rather than on
/// the board: an external engine that crashed, hung, printed garbage or
/// answered too late. The text says what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit(pub String);

impl std::fmt::Display for Forfeit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A computer player.
pub trait Player: Send {
    /// The spec this player was built from.
    fn spec(&self) -> &str;

    /// Searches `pos` as `search` says: within its budget (or the player's
    /// own) or until its stop flag is raised, whichever comes first. A
    /// stopped search still answers with a legal move, the best so far.
    fn search(&mut self, pos: &Position, search: Search<'_>) -> Analysis;

    /// [`Player::search`] for a caller that adjudicates: an error is a
    /// forfeit (our own players never fail; external engines may).
    fn try_search(&mut self, pos: &Position, search: Search<'_>) -> Result<Analysis, Forfeit> {
        Ok(self.search(pos, search))
    }

    /// Searches `pos` within the player's budget.
    fn analyse(&mut self, pos: &Position) -> Analysis {
        self.analyse_until(pos, &Stop::new())
    }

    /// Searches `pos` within the player's budget or until `stop` is
    /// requested, whichever comes first.
    fn analyse_until(&mut self, pos: &Position, stop: &Stop) -> Analysis {
        self.search(pos, Search::new(stop))
    }

    /// The move to play in `pos`.
    fn choose_move(&mut self, pos: &Position) -> Move {
        self.analyse(pos).best_move
    }

    /// Forgets everything from earlier games (trees, tables, statistics),
    /// keeping the seed's sequence going.
    fn new_game(&mut self) {}
}

/// The README's Rust examples (the engine's and the players'), run as
/// doctests here, the lowest crate that has both.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
