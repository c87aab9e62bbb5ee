//! Games between players, matches, and the Elo arithmetic to read them
//! (`summary`).

mod summary;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
pub use summary::MatchSummary;
use yolah::rng::{game_seed, splitmix64};
use yolah::{Color, Move, Position, Rng};
use yolah_players::{
    from_spec, with_seed, Budget, GameClock, Player, Search, SpecError, StartError, Stop,
};

/// Why a game of a match cannot be played: a player spec that makes no
/// player, or a player that cannot start (an engine that cannot be run or
/// does not shake hands). Unlike a forfeit, which loses one game, either
/// stops the match.
#[derive(Debug)]
pub enum GameError {
    /// A spec that makes no player.
    Spec(SpecError),
    /// A player that cannot start.
    Start(StartError),
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::Spec(e) => write!(f, "{e}"),
            GameError::Start(e) => write!(f, "{e}"),
        }
    }
}

/// Its text is the inner error's (no `source`, which would print it twice).
impl std::error::Error for GameError {}

impl From<SpecError> for GameError {
    fn from(e: SpecError) -> GameError {
        GameError::Spec(e)
    }
}

impl From<StartError> for GameError {
    fn from(e: StartError) -> GameError {
        GameError::Start(e)
    }
}

/// A clock for both sides, written in seconds (`10+0.1`, as engine testers
/// do; the server's `TimeControl` of people's games is in minutes): `base`
/// each, `increment` added after every move; a side whose move takes longer
/// than its time left plus `margin` loses on time. In-process players and
/// external engines are held to the same clock: ours are given
/// [`GameClock::time_for_move`] of it as their budget (the alpha-beta
/// players with time management, `tm`, on by default, plan their own time
/// from the clock instead) and an engine is sent the clock and decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Time on each clock at the start.
    pub base: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Grace past zero before a move counts as lost on time.
    pub margin: Duration,
}

/// Why a text is not a time control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTimeControlError(String);

impl std::fmt::Display for ParseTimeControlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseTimeControlError {}

impl TimeControl {
    /// Milliseconds an in-process player keeps back from its share.
    const OVERHEAD: Duration = Duration::from_millis(10);
    /// The margin unless told otherwise.
    pub const DEFAULT_MARGIN: Duration = Duration::from_millis(100);

    /// Parses `BASE+INCREMENT` or `BASE`, in seconds: `10+0.1`, `60`.
    pub fn parse(text: &str) -> Result<TimeControl, ParseTimeControlError> {
        let bad = || {
            ParseTimeControlError(format!(
                "{text:?} is not a time control like 10+0.1 (seconds, and an increment)"
            ))
        };
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |t: &str| {
            t.parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && (0.0..1e6).contains(s))
                .map(Duration::from_secs_f64)
        };
        let (base, increment) = (
            seconds(base).ok_or_else(bad)?,
            seconds(inc).ok_or_else(bad)?,
        );
        if base.is_zero() {
            return Err(bad());
        }
        Ok(TimeControl {
            base,
            increment,
            margin: TimeControl::DEFAULT_MARGIN,
        })
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base.as_secs_f64(),
            self.increment.as_secs_f64()
        )
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameEnd {
    /// The last position.
    pub position: Position,
    /// The moves played from the start position.
    pub moves: Vec<Move>,
    /// The side that lost by forfeit, and why: its engine crashed, hung,
    /// broke the protocol or ran out of time, or it chose an illegal move.
    pub forfeit: Option<(Color, String)>,
}

impl GameEnd {
    /// `color`'s points: 1 for a win, ½ for a draw, 0 for a loss, a
    /// forfeit counting as a loss whatever the board says.
    pub fn points(&self, color: Color) -> f64 {
        match &self.forfeit {
            Some((loser, _)) => f64::from(u8::from(*loser != color)),
            None => self.position.outcome().points(color),
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`, forfeits included.
    pub fn result(&self) -> &'static str {
        match &self.forfeit {
            Some((Color::Black, _)) => "0-1",
            Some((Color::White, _)) => "1-0",
            None => self.position.outcome().notation(),
        }
    }
}

/// Plays a game from `start` to its end; `on_move` sees each position and
/// the move played in it. A player whose search fails ([`Player::try_search`])
/// or who chooses an illegal move loses by forfeit, and the game ends there.
/// Before each move the player gets ready ([`Player::start`]) outside its
/// time: a player that cannot start then forfeits too (callers that want
/// to stop instead start the players first, as [`play_match_game`] does).
pub fn play_game(
    black: &mut dyn Player,
    white: &mut dyn Player,
    start: Position,
    on_move: impl FnMut(&Position, Move),
) -> GameEnd {
    play_game_with_clock(black, white, start, None, on_move)
}

/// [`play_game`] with a clock: each player searches for its share of its
/// time, and a move that takes longer than the time left plus the margin
/// loses on time.
pub fn play_game_with_clock(
    black: &mut dyn Player,
    white: &mut dyn Player,
    start: Position,
    tc: Option<TimeControl>,
    mut on_move: impl FnMut(&Position, Move),
) -> GameEnd {
    let mut pos = start;
    let mut moves = Vec::new();
    let stop = Stop::new();
    let mut remaining = [tc.map_or(Duration::ZERO, |t| t.base); 2];
    while !pos.is_game_over() {
        let side = pos.side_to_move();
        let player: &mut dyn Player = match side {
            Color::Black => black,
            Color::White => white,
        };
        let forfeit = |why: String| GameEnd {
            position: pos,
            moves: moves.clone(),
            forfeit: Some((side, why)),
        };
        if let Err(e) = player.start() {
            return forfeit(e.to_string());
        }
        let mut search = Search::new(&stop);
        if let Some(tc) = tc {
            let left = remaining[side as usize];
            search.budget = Some(Budget::Time(GameClock::time_for_move(
                left,
                tc.increment,
                TimeControl::OVERHEAD,
            )));
            search.clock = Some(GameClock {
                remaining,
                increment: [tc.increment; 2],
            });
        }
        let began = Instant::now();
        let m = match player.try_search(&pos, search) {
            Ok(a) => a.best_move,
            Err(f) => return forfeit(f.0),
        };
        if let Some(tc) = tc {
            let took = began.elapsed();
            let left = remaining[side as usize];
            if took > left + tc.margin {
                return forfeit(format!(
                    "lost on time: the move took {:.3} s with {:.3} s on the clock",
                    took.as_secs_f64(),
                    left.as_secs_f64()
                ));
            }
            remaining[side as usize] = left.saturating_sub(took) + tc.increment;
        }
        if let Err(e) = pos.check_move(m) {
            return forfeit(format!("illegal move {m}: {e}"));
        }
        on_move(&pos, m);
        pos.play(m);
        moves.push(m);
    }
    GameEnd {
        position: pos,
        moves,
        forfeit: None,
    }
}

/// The opening of pair `pair` of a match seeded `seed`: `plies` uniformly
/// random moves from the start (fewer if the game would end).
pub fn random_opening(seed: u64, pair: u64, plies: u32) -> Vec<Move> {
    let mut rng = Rng::for_game(seed ^ 0x6f70_656e_696e_6773, pair);
    let mut pos = Position::START;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let m = pos.random_move(&mut rng);
        let mut next = pos;
        next.play(m);
        if next.is_game_over() {
            break;
        }
        pos = next;
        moves.push(m);
    }
    moves
}

/// One game of a match, from player A's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchGame {
    /// Index of the game in the match.
    pub index: u64,
    /// Whether A had Black.
    pub a_is_black: bool,
    /// The opening moves, then the players' moves.
    pub moves: Vec<Move>,
    /// The opening's length in plies.
    pub opening_plies: usize,
    /// A's points: 1 win, 0.5 draw, 0 loss.
    pub a_points: f64,
    /// Final scores (black, white).
    pub scores: (u8, u8),
    /// `1-0`, `0-1` or `1/2-1/2`, forfeits included.
    pub result: &'static str,
    /// The side that lost by forfeit (`black` or `white`) and why.
    pub forfeit: Option<(Color, String)>,
}

/// Plays game `index` of a match: pairs of games share an opening, and A has
/// Black in even games. Each player gets its own seed from the match seed
/// and the game index, so the game is the same on any thread. Both players
/// start before the game: one that cannot is an error, not a forfeit.
pub fn play_match_game(
    spec_a: &str,
    spec_b: &str,
    seed: u64,
    index: u64,
    tc: Option<TimeControl>,
) -> Result<MatchGame, GameError> {
    let game_seed = game_seed(seed, index);
    let mut a = from_spec(&with_seed(spec_a, game_seed))?;
    let mut b = from_spec(&with_seed(spec_b, splitmix64(game_seed)))?;
    // The error names the player as the caller wrote it, without the seed.
    fn as_written(spec: &str) -> impl Fn(StartError) -> StartError + '_ {
        move |e| StartError {
            spec: spec.to_string(),
            ..e
        }
    }
    a.start().map_err(as_written(spec_a))?;
    b.start().map_err(as_written(spec_b))?;
    Ok(play_match_game_with(
        a.as_mut(),
        b.as_mut(),
        seed,
        index,
        tc,
    ))
}

/// [`play_match_game`] between players already built (and seeded) by the
/// caller: the opening of pair `index / 2` of the match seeded `seed`, A
/// with Black in even games.
pub fn play_match_game_with<'p>(
    a: &'p mut dyn Player,
    b: &'p mut dyn Player,
    seed: u64,
    index: u64,
    tc: Option<TimeControl>,
) -> MatchGame {
    let opening = random_opening(seed, index / 2, 4);
    let a_is_black = index.is_multiple_of(2);
    let mut start = Position::START;
    for &m in &opening {
        start.play(m);
    }
    let (black, white) = if a_is_black { (a, b) } else { (b, a) };
    let end = play_game_with_clock(black, white, start, tc, |_, _| {});
    let a_color = if a_is_black {
        Color::Black
    } else {
        Color::White
    };
    let mut moves = opening.clone();
    moves.extend(end.moves.iter().copied());
    let p = end.position;
    MatchGame {
        index,
        a_is_black,
        moves,
        opening_plies: opening.len(),
        a_points: end.points(a_color),
        scores: (p.score(Color::Black), p.score(Color::White)),
        result: end.result(),
        forfeit: end.forfeit,
    }
}

/// What a match is: two players, a number of games, a seed, a clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match<'a> {
    /// Player A's spec.
    pub a: &'a str,
    /// Player B's spec.
    pub b: &'a str,
    /// Games to play.
    pub games: u64,
    /// Seed of openings and players.
    pub seed: u64,
    /// The clock, if any (otherwise each player's own budget).
    pub tc: Option<TimeControl>,
}

impl<'a> Match<'a> {
    /// `games` games between `a` and `b` seeded `seed`, without a clock.
    pub fn new(a: &'a str, b: &'a str, games: u64, seed: u64) -> Match<'a> {
        Match {
            a,
            b,
            games,
            seed,
            tc: None,
        }
    }
}

/// Plays games `0..games` over `threads` workers; results in game order.
/// `progress` is called after each game with the number finished.
pub fn run_match(
    m: &Match<'_>,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<MatchGame>, GameError> {
    run_match_until(m, threads, progress, &|_| false)
}

/// [`run_match`] that may stop early: `stop` sees A's points of the first
/// `n` games for n = 1, 2, … in order, and the match ends at the first `n`
/// where it answers true. Games are handed out in order, and only the
/// finished prefix is judged, so the result does not depend on `threads`.
/// A player that cannot start stops the match with [`GameError::Start`].
pub fn run_match_until(
    m: &Match<'_>,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
    stop: &(dyn Fn(&[f64]) -> bool + Sync),
) -> Result<Vec<MatchGame>, GameError> {
    let Match {
        a: spec_a,
        b: spec_b,
        games,
        seed,
        tc,
    } = *m;
    // Check both specs once, up front, for a clear error.
    from_spec(spec_a)?;
    from_spec(spec_b)?;
    struct State {
        results: Vec<Option<MatchGame>>,
        points: Vec<f64>,
        decided: Option<usize>,
        error: Option<GameError>,
    }
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let state = Mutex::new(State {
        results: vec![None; games as usize],
        points: Vec::new(),
        decided: None,
        error: None,
    });
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                {
                    let st = state.lock().expect("no poisoned lock");
                    if st.decided.is_some() || st.error.is_some() {
                        return;
                    }
                }
                let i = next.fetch_add(1, Ordering::Relaxed) as u64;
                if i >= games {
                    return;
                }
                let game = play_match_game(spec_a, spec_b, seed, i, tc);
                let mut st = state.lock().expect("no poisoned lock");
                match game {
                    Ok(g) => st.results[i as usize] = Some(g),
                    Err(e) => {
                        st.error = Some(e);
                        return;
                    }
                }
                // Judge every newly finished prefix, shortest first.
                while st.decided.is_none() {
                    let n = st.points.len();
                    let Some(p) = st
                        .results
                        .get(n)
                        .and_then(|g| g.as_ref())
                        .map(|g| g.a_points)
                    else {
                        break;
                    };
                    st.points.push(p);
                    if stop(&st.points) {
                        st.decided = Some(n + 1);
                    }
                }
                drop(st);
                progress(done.fetch_add(1, Ordering::Relaxed) as u64 + 1);
            });
        }
    });
    let st = state.into_inner().expect("workers have finished");
    if let Some(e) = st.error {
        return Err(e);
    }
    let keep = st.decided.unwrap_or(games as usize);
    Ok(st.results.into_iter().take(keep).flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_and_print() {
        let tc = TimeControl::parse("10+0.1").unwrap();
        assert_eq!(
            (tc.base, tc.increment),
            (Duration::from_secs(10), Duration::from_millis(100))
        );
        assert_eq!(tc.to_string(), "10+0.1");
        assert_eq!(TimeControl::parse("60").unwrap().increment, Duration::ZERO);
        for bad in ["", "0", "x+1", "10+", "-1+0", "1e9"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn players_held_to_a_clock_finish_in_time() {
        // Searches that would run for ever must stop on their clock. The
        // clock is long enough (what is left stays above a second) that a
        // loaded machine's scheduling pauses, which a player cannot help,
        // do not flag it: at 1+0.02 a pause of a few hundred milliseconds
        // late in a debug-build game did.
        let m = Match {
            tc: Some(TimeControl::parse("3+0.05").unwrap()),
            ..Match::new("alphabeta:depth=30", "mcts:iterations=100000000", 2, 1)
        };
        let games = run_match(&m, 2, &|_| {}).unwrap();
        for g in &games {
            assert_eq!(g.forfeit, None, "a player ran out of time");
        }
    }

    #[test]
    fn matches_are_deterministic_and_alternate_colours() {
        let a = "mcts:iterations=200";
        let b = "random";
        let one = run_match(&Match::new(a, b, 6, 3), 1, &|_| {}).unwrap();
        let two = run_match(&Match::new(a, b, 6, 3), 2, &|_| {}).unwrap();
        assert_eq!(one, two);
        assert_eq!(one.len(), 6);
        assert!(one[0].a_is_black && !one[1].a_is_black);
        assert_eq!(
            one[0].moves[..one[0].opening_plies],
            one[1].moves[..one[1].opening_plies]
        );
        assert!(run_match(&Match::new("nope", b, 2, 0), 1, &|_| {}).is_err());
        // Stopping early keeps exactly the judged prefix, on any thread count.
        let stop = |p: &[f64]| p.len() == 3;
        let early = run_match_until(&Match::new(a, b, 6, 3), 2, &|_| {}, &stop).unwrap();
        assert_eq!(early, one[..3]);
    }
}
