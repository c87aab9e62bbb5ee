//! What every player is: the [`Player`] trait, what a search is asked
//! ([`Search`]) and what it found ([`Analysis`]), how an external engine
//! loses outside the board ([`Forfeit`]), and why one cannot play at all
//! ([`StartError`]).

use crate::budget::{Budget, GameClock, Stop};
use crate::score::Score;
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
    /// the clock and decides; the caller also gives our players a time
    /// `budget` ([`GameClock::time_for_move`]), which the Monte Carlo
    /// players spend as it is and the alpha-beta players (`alphabeta`,
    /// `nn`) replace with their own plan from the clock while their time
    /// management (`tm`, on by default) is on.
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

/// Where a forfeit's reason starts quoting the engine's last stderr lines
/// (an engine that died in a game: see [`crate::ExternalEngine`]).
pub const STDERR_WORDS: &str = "; its last words on stderr: ";

/// A forfeit's reason without the engine's quoted stderr: the same for
/// every game lost the same way, whatever the engine printed (a match
/// groups its forfeits by it; a server shows players no more than it).
pub fn forfeit_kind(reason: &str) -> &str {
    reason
        .split_once(STDERR_WORDS)
        .map_or(reason, |(kind, _)| kind)
}

impl std::fmt::Display for Forfeit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a player cannot play at all, where a [`Forfeit`] loses one game:
/// an external engine that cannot be run, or that exits or stays silent
/// before its handshake. A run that meets one stops, and says why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartError {
    /// The player's spec.
    pub spec: String,
    /// What happened.
    pub reason: String,
    /// The last lines the engine wrote on its standard error, oldest
    /// first: usually the real reason. `None` when there was no standard
    /// error to read (the program could not be run at all).
    pub stderr: Option<Vec<String>>,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} did not start: {}", self.spec, self.reason)?;
        let Some(stderr) = &self.stderr else {
            return Ok(());
        };
        if stderr.is_empty() {
            return f.write_str(" (and wrote nothing on stderr)");
        }
        f.write_str("; the last lines it wrote on stderr:")?;
        for line in stderr {
            write!(f, "\n  | {line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for StartError {}

impl StartError {
    /// What a caller that was about to search says of it: "the player is
    /// not ready: " and the error. `yolah engine`'s `info string` (on one
    /// line) and Python's `YolahError` both use it.
    pub fn not_ready(&self) -> String {
        format!("the player is not ready: {self}")
    }
}

/// A computer player.
pub trait Player: Send {
    /// The spec this player was built from.
    fn spec(&self) -> &str;

    /// Gets ready to play, before a game's clock runs: an external engine
    /// starts its process (or checks that it still runs) and shakes hands
    /// within a deadline of its own, and an alpha-beta player allocates its
    /// table and solver, so that no move's time pays for it. Called again
    /// before later moves, it has nothing left to do. The default does
    /// nothing.
    fn start(&mut self) -> Result<(), StartError> {
        Ok(())
    }

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
