//! # yolah-players
//!
//! Computer players for Yolah behind one trait, [`Player`], each built from
//! a spec string `NAME[:key=value,…]` by [`from_spec`].
//!
//! | name        | plays                                   | keys (besides `seed=`)          |
//! |-------------|-----------------------------------------|---------------------------------|
//! | `random`    | a uniform random legal move             |                                 |
//! | `mc`        | flat Monte Carlo, best mean playout     | `playouts=`, `time=`            |
//! | `mcts`      | Monte Carlo tree search with UCT        | `iterations=`, `time=`, `nodes=`, `c=`, `eval=`, `net=`, `threads=` |
//! | `alphabeta` | negamax alpha-beta, heuristic evaluation| `depth=`, `nodes=`, `time=`, `threads=`, `hash=`, `weights=`, search options |
//! | `nn`        | the same search, network evaluation     | `depth=`, `nodes=`, `time=`, `threads=`, `hash=`, `net=`, search options |
//! | `az`        | PUCT search with a policy-value network  | `net=` (required), `sims=`, `time=`, `c=`, `fpu=`, `nodes=` |
//! | `engine`    | another program, through the engine protocol | `cmd=` (required), `name=`, `time=`, `depth=`, `nodes=`, `timeout=` |
//!
//! `threads=N` searches on N threads (lazy SMP on one shared table);
//! `hash=MIB` sizes that table ([`DEFAULT_HASH_MIB`] unless given). With a
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
//! Layers inside the crate point one way, and no module reaches back up:
//!
//! * leaves: [`score`] (what a position is worth, in which units), the
//!   budget and stop flag, the shared search limits;
//! * [`eval`] (features and the heuristic) below [`nn`] (a network that is
//!   an [`eval::Evaluator`]), and the exact endgame [`solve`]r;
//! * the [`Player`] trait, and the spec parser (typed values: seed,
//!   threads, budget, network);
//! * the players, each building itself from a parsed spec: alpha-beta
//!   ([`AlphaBeta`], for `alphabeta` and `nn`), [`Mcts`], [`MonteCarlo`],
//!   [`RandomPlayer`], [`ExternalEngine`], and [`az`] (public: its
//!   encoding and search tree also serve the Python package);
//! * at the top, the registry: the only module that knows every player
//!   and maps names to them ([`from_spec`], [`PLAYER_NAMES`]).
//!
//! The players' modules are private; their types are re-exported here.
//! `eval`, `nn`, `score`, `solve` and `az` stay public: each is a library
//! of its own (features, the network format, the score scale, the solver,
//! the learner's encoding and tree).
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod alphabeta;
pub mod az;
mod budget;
pub mod eval;
mod external;
mod limits;
mod mc;
mod mcts;
pub mod nn;
mod player;
mod random;
mod registry;
pub mod score;
pub mod solve;
mod spec;
mod table;

pub use alphabeta::{AlphaBeta, SearchOptions, DEFAULT_HASH_MIB, MAX_HASH_MIB};
pub use budget::{Budget, GameClock, Stop};
pub use external::ExternalEngine;
pub use limits::{available_cores, MAX_DEPTH, MAX_THREADS};
pub use mc::MonteCarlo;
pub use mcts::{LeafValue, Mcts};
pub use player::{forfeit_kind, Analysis, Forfeit, Player, Search, StartError, STDERR_WORDS};
pub use random::RandomPlayer;
pub use registry::{from_spec, from_spec_with_threads, with_default_threads, PLAYER_NAMES};
pub use score::Score;
pub use spec::{parse_duration, with_seed, SpecError};

/// The README's Rust examples (the engine's and the players'), run as
/// doctests here, the lowest crate that has both.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
