//! What a spec sets in an alpha-beta player: its budget, its search
//! techniques ([`SearchOptions`]), its threads and its evaluation — the
//! heuristic's weights for `alphabeta`, a network for `nn`.

use super::{AlphaBeta, DEFAULT_HASH_MIB, MAX_HASH_MIB};
use crate::budget::Budget;
use crate::eval::Evaluator;
use crate::eval::Weights;
use crate::limits::MAX_DEPTH;
use crate::player::Player;
use crate::spec::{FromSpec, Spec, SpecError};

/// `alphabeta`: the heuristic evaluation (`weights=NAME_OR_FILE` for other
/// weights than the default).
impl FromSpec for AlphaBeta<Weights> {
    fn keys() -> Vec<&'static str> {
        let keys = [
            "depth", "nodes", "time", "threads", "hash", "weights", "seed",
        ];
        [&keys[..], &OPTION_KEYS[..]].concat()
    }

    fn from_spec(spec: &Spec) -> Result<AlphaBeta, SpecError> {
        let budget = parse_budget(spec)?;
        let mut player = AlphaBeta::new(budget, spec.weights()?, spec.seed()?);
        player.set_spec(spec.text());
        player.set_threads(spec.threads()?);
        player.set_hash(parse_hash(spec)?);
        player.set_options(parse_options(spec)?);
        Ok(player)
    }
}

/// The keys of `nn`: the same search with the network evaluation
/// (`net=FILE` for another network than the shipped one).
pub(crate) fn nn_keys() -> Vec<&'static str> {
    let keys = ["depth", "nodes", "time", "threads", "hash", "net", "seed"];
    [&keys[..], &OPTION_KEYS[..]].concat()
}

/// The `nn` player of `spec`: an [`AlphaBeta`] over whichever network type
/// `net=` loads (each format and width is its own type).
pub(crate) fn nn_from_spec(spec: &Spec) -> Result<Box<dyn Player>, SpecError> {
    let net = spec.net()?;
    crate::with_network!(net, net => nn_player(spec, net))
}

fn nn_player<E: Evaluator + 'static>(spec: &Spec, net: E) -> Result<Box<dyn Player>, SpecError> {
    let budget = parse_budget(spec)?;
    let mut player = AlphaBeta::with_evaluator(budget, net, spec.seed()?);
    player.set_spec(spec.text());
    player.set_threads(spec.threads()?);
    player.set_hash(parse_hash(spec)?);
    player.set_options(parse_options(spec)?);
    Ok(Box::new(player))
}

/// The table size of a spec, `hash=` in MiB ([`DEFAULT_HASH_MIB`] when not
/// given).
fn parse_hash(spec: &Spec) -> Result<usize, SpecError> {
    match spec.number("hash")? {
        None => Ok(DEFAULT_HASH_MIB),
        Some(n) if (1..=MAX_HASH_MIB as u64).contains(&n) => Ok(n as usize),
        Some(n) => Err(spec.bad_value(
            "hash",
            n,
            &format!("must be from 1 to {MAX_HASH_MIB} (MiB)"),
        )),
    }
}

/// The budget of a spec: `depth=`, `nodes=` or `time=` (depth 7 when none
/// is given).
fn parse_budget(spec: &Spec) -> Result<Budget, SpecError> {
    let depth = spec.number("depth")?;
    let nodes = spec.number("nodes")?;
    let time = spec.time()?;
    Ok(match (depth, nodes, time) {
        (None, None, None) => Budget::Depth(7),
        (Some(d), None, None) if (1..=u64::from(MAX_DEPTH)).contains(&d) => Budget::Depth(d as u32),
        (Some(d), None, None) => {
            return Err(spec.bad_value("depth", d, &format!("must be from 1 to {MAX_DEPTH}")))
        }
        (None, Some(0), None) => {
            return Err(spec.bad_value("nodes", 0, "leaves nothing to search"))
        }
        (None, Some(n), None) => Budget::Count(n),
        (None, None, Some(t)) => Budget::Time(t),
        _ => {
            return Err(spec.conflict(
                &["depth", "nodes", "time"],
                "give only one of depth=, nodes= or time=, not several",
            ))
        }
    })
}

/// Search techniques that a spec can switch on or off (`lmr=0`, `rfp=1`,
/// …), so that `yolah match` can measure each one against the search
/// without it. `docs/search-log.md` records every measurement and the
/// defaults follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Late-move reductions: moves late in the order are searched less
    /// deep first, and again at full depth only if they beat alpha.
    pub lmr: bool,
    /// Reverse futility pruning: near the leaves, a node whose static
    /// evaluation beats beta by a depth-sized margin is cut at once.
    pub rfp: bool,
    /// Late-move pruning: near the leaves, moves late in the order are not
    /// searched at all.
    pub lmp: bool,
    /// Aspiration windows: each iteration first searches a narrow window
    /// around the last one's score.
    pub aspiration: bool,
    /// Countermoves: the reply that last refuted the opponent's move is
    /// tried right after the killers.
    pub countermove: bool,
    /// Time management: with a game clock, the time for a move is a target
    /// rather than a limit. The search stops between iterations once the
    /// best move has stayed the same long enough, and may run over the
    /// target (up to a hard limit) while the best move keeps changing.
    pub time_management: bool,
    /// Ordering by evaluation: far enough from the horizon, moves that are
    /// not the table move, a killer or the countermove are tried in the
    /// order of the static values they leave (which weigh territory)
    /// instead of by history.
    pub eval_order: bool,
    /// History with a malus: a cut rewards its move's history and takes as
    /// much from the moves searched before it at that node, each change
    /// scaled down as the score nears its bound (the "gravity" of
    /// Stockfish), instead of only rewarding cuts.
    pub history_malus: bool,
    /// Late-move reductions one ply deeper at null-window nodes (off the
    /// principal variation), where a move only has to be proved worse.
    pub null_window_reduction: bool,
    /// Null-move pruning: off the principal variation, a node whose static
    /// value beats beta lets the opponent move twice (a pass) in a
    /// shallower search, and is cut if it still beats beta.
    pub null_move: bool,
    /// Internal iterative reduction: a node the table knows no move for is
    /// searched a ply less deep.
    pub internal_reduction: bool,
    /// Late-move reductions a ply smaller at principal-variation nodes
    /// (full window), where the moves' values matter, not only their
    /// being worse.
    pub pv_reduction: bool,
    /// Singular extensions: the table's move is searched a ply deeper when
    /// a shallower search without it shows every other move well below
    /// its score (and the node is cut when the others reach beta too).
    pub singular: bool,
    /// Exact separated regions: a node where no free square is in reach of
    /// both sides is scored by the exact longest paths of each side in its
    /// own region (a proven win, draw or loss), not by the evaluation,
    /// when those paths take few enough steps to find.
    pub exact_regions: bool,
    /// Freezing moves first: after the table's move, the killers and the
    /// countermove, a move that leaves an opponent's piece with no move
    /// (its last free neighbour is the landing square) goes before the
    /// other moves.
    pub freeze_order: bool,
    /// Continuation history: a move's history score adds what it earned
    /// as the reply to the opponent's last move and as the follow-up to
    /// our own before it (keyed by the square each landed on), so the
    /// order follows the line played, not only the move. Its scores are
    /// rewarded as the plain history's are without `hm` (no malus, no
    /// gravity), with or without `hm`.
    pub continuation: bool,
    /// Reverse futility pruning deeper: up to 6 plies from the horizon
    /// instead of 4 (with `rfp` on; the margin grows with the depth as
    /// before).
    pub rfp_deeper: bool,
    /// ProbCut: off the principal variation, 5 or more plies from the
    /// horizon, a node whose static value is 100 centipoints or more beyond
    /// its window is searched 4 plies shallower with the window moved that
    /// far out, and cut if that search agrees.
    pub probcut: bool,
}

impl SearchOptions {
    /// Every technique off: the exact alpha-beta that plain minimax checks.
    pub const NONE: SearchOptions = SearchOptions {
        lmr: false,
        rfp: false,
        lmp: false,
        aspiration: false,
        countermove: false,
        time_management: false,
        eval_order: false,
        history_malus: false,
        null_window_reduction: false,
        null_move: false,
        internal_reduction: false,
        pv_reduction: false,
        singular: false,
        exact_regions: false,
        freeze_order: false,
        continuation: false,
        rfp_deeper: false,
        probcut: false,
    };
}

impl Default for SearchOptions {
    /// What `docs/search-log.md` found worth keeping.
    fn default() -> SearchOptions {
        SearchOptions {
            lmr: true,
            rfp: true,
            lmp: true,
            aspiration: true,
            countermove: false,
            time_management: true,
            eval_order: false,
            history_malus: false,
            null_window_reduction: true,
            null_move: false,
            internal_reduction: false,
            pv_reduction: false,
            singular: false,
            exact_regions: true,
            freeze_order: false,
            continuation: false,
            rfp_deeper: false,
            probcut: true,
        }
    }
}

/// The spec keys of [`SearchOptions`].
const OPTION_KEYS: [&str; 18] = [
    "lmr", "rfp", "lmp", "asp", "cm", "tm", "eo", "hm", "nwr", "nmp", "iir", "pvr", "se", "xr",
    "fo", "ch", "rfd", "pc",
];

/// The spec's search options (the defaults for keys not given).
fn parse_options(spec: &Spec) -> Result<SearchOptions, SpecError> {
    let flag = |key: &str, default: bool| match spec.number(key)? {
        None => Ok(default),
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        Some(n) => Err(spec.bad_value(key, n, "must be 0 (off) or 1 (on)")),
    };
    let d = SearchOptions::default();
    Ok(SearchOptions {
        lmr: flag("lmr", d.lmr)?,
        rfp: flag("rfp", d.rfp)?,
        lmp: flag("lmp", d.lmp)?,
        aspiration: flag("asp", d.aspiration)?,
        countermove: flag("cm", d.countermove)?,
        time_management: flag("tm", d.time_management)?,
        eval_order: flag("eo", d.eval_order)?,
        history_malus: flag("hm", d.history_malus)?,
        null_window_reduction: flag("nwr", d.null_window_reduction)?,
        null_move: flag("nmp", d.null_move)?,
        internal_reduction: flag("iir", d.internal_reduction)?,
        pv_reduction: flag("pvr", d.pv_reduction)?,
        singular: flag("se", d.singular)?,
        exact_regions: flag("xr", d.exact_regions)?,
        freeze_order: flag("fo", d.freeze_order)?,
        continuation: flag("ch", d.continuation)?,
        rfp_deeper: flag("rfd", d.rfp_deeper)?,
        probcut: flag("pc", d.probcut)?,
    })
}
