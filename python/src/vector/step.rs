//! One step in every game: the rules of a step for one game, and the
//! batch split over threads.

use super::arrays::StepRows;
use super::{Autoreset, Game};
use yolah::Color;
use yolah_players::az::encoding::{action_index, move_of_action};

/// Games a thread takes at least: below this, starting a thread costs more
/// than it saves.
const MIN_GAMES_PER_THREAD: usize = 512;

/// What a step does in each game.
#[derive(Clone, Copy)]
pub(super) enum Step<'a> {
    /// Plays the given actions (checked beforehand).
    Actions(&'a [i64]),
    /// Plays a uniformly random legal move.
    Random,
    /// Starts the games (all, or those flagged) afresh.
    Reset(Option<&'a [bool]>),
}

/// One game's step, written into row `i` of `out`; whether the game
/// ended at this step. A finished game in `disabled` mode stays as it is.
#[inline]
pub(super) fn step_game(
    game: &mut Game,
    i: usize,
    global: usize,
    step: Step<'_>,
    mode: Autoreset,
    out: &mut StepRows<'_>,
) -> bool {
    if game.ended && mode == Autoreset::Disabled && !matches!(step, Step::Reset(_)) {
        return false;
    }
    out.clear(i);
    out.played[i] = -1;
    let m = match step {
        Step::Reset(mask) => {
            if mask.is_none_or(|m| m[global]) {
                game.restart();
            }
            out.score(i, game.pos());
            out.observe(i, game.pos());
            return false;
        }
        _ if game.ended => {
            // next_step: this step starts the new game.
            game.restart();
            out.score(i, game.pos());
            out.observe(i, game.pos());
            return false;
        }
        Step::Actions(actions) => {
            let m = move_of_action(actions[global] as usize)
                .expect("actions are checked before the step");
            game.play(m);
            m
        }
        Step::Random => game.play_random(),
    };
    out.played[i] = action_index(m) as i16;
    let pos = *game.pos();
    // The side that moved: the one not to move now.
    let mover = pos.side_to_move().opponent();
    out.score(i, &pos);
    let over = pos.is_game_over();
    if over {
        let outcome = pos.outcome();
        out.rewards[i] = f32::from(outcome.sign(mover));
        out.colour_rewards[2 * i] = f32::from(outcome.sign(Color::Black));
        out.colour_rewards[2 * i + 1] = f32::from(outcome.sign(Color::White));
        out.terminated[i] = true;
        if mode == Autoreset::SameStep {
            if let Some(finals) = out.finals.as_mut() {
                finals.write(i, &pos);
            }
            if let Some(flags) = out.final_flags.as_deref_mut() {
                flags[i] = true;
            }
            game.restart();
        } else {
            game.ended = true;
        }
    }
    out.observe(i, game.pos());
    over
}

/// Games ended during a call, by result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Ended {
    pub(super) black_wins: u64,
    pub(super) white_wins: u64,
    pub(super) draws: u64,
}

impl Ended {
    pub(super) fn add(self, other: Ended) -> Ended {
        Ended {
            black_wins: self.black_wins + other.black_wins,
            white_wins: self.white_wins + other.white_wins,
            draws: self.draws + other.draws,
        }
    }

    /// Counts the end written in row `i`, if the game ended there.
    #[inline]
    pub(super) fn count(&mut self, rows: &StepRows<'_>, i: usize) {
        if rows.terminated[i] {
            match rows.colour_rewards[2 * i] {
                r if r > 0.0 => self.black_wins += 1,
                r if r < 0.0 => self.white_wins += 1,
                _ => self.draws += 1,
            }
        }
    }
}

/// Runs `steps` steps of `step` over `games` on up to `threads` threads,
/// each on a contiguous range of games and rows. Games are independent:
/// each takes its `steps` steps in a row while its state is in cache, and
/// the rows hold the last step's results.
pub(super) fn run_steps(
    threads: usize,
    games: &mut [Game],
    rows: StepRows<'_>,
    step: Step<'_>,
    steps: u64,
    mode: Autoreset,
) -> Ended {
    let chunk = games
        .len()
        .div_ceil(threads.max(1))
        .max(MIN_GAMES_PER_THREAD);
    let work = |games: &mut [Game], offset: usize, mut rows: StepRows<'_>| {
        let mut ended = Ended::default();
        for (i, game) in games.iter_mut().enumerate() {
            for _ in 0..steps {
                if step_game(game, i, offset + i, step, mode, &mut rows) {
                    ended.count(&rows, i);
                }
            }
        }
        ended
    };
    std::thread::scope(|s| {
        let (mut games, mut rows, mut offset) = (games, rows, 0);
        let mut helpers = Vec::new();
        while games.len() > chunk {
            let (here, rest) = games.split_at_mut(chunk);
            let (here_rows, rest_rows) = rows.split_at(chunk);
            let work = &work;
            helpers.push(s.spawn(move || work(here, offset, here_rows)));
            (games, rows, offset) = (rest, rest_rows, offset + chunk);
        }
        let own = work(games, offset, rows);
        helpers
            .into_iter()
            .map(|h| h.join().expect("a step does not panic"))
            .fold(own, Ended::add)
    })
}
