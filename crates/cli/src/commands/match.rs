//! `yolah match`: games between two players with alternating colours, the
//! result and the Elo difference (A's point of view), optionally stopped by
//! a sequential probability ratio test.

use crate::args::whole;
use crate::progress::progress_bar;
use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;
use std::collections::HashMap;
use std::time::Instant;
use yolah_lab::games::{run_match_until, Match, MatchGame, MatchSummary, TimeControl};
use yolah_lab::ratings::{Sprt, SprtState};
use yolah_lab::MAX_RUN_THREADS;
use yolah_players::forfeit_kind;

/// What `yolah match` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Play games between two players with alternating colours and report the \
    result and Elo difference (A's point of view)";

/// `yolah match`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct MatchArgs {
    /// Player A, such as mcts:time=100ms.
    spec_a: String,
    /// Player B.
    spec_b: String,
    /// Number of games (pairs share a random opening).
    #[arg(long, default_value_t = 100, value_parser = whole::<u64>(1, 10_000_000), allow_negative_numbers = true)]
    games: u64,
    /// Seed of the openings and of the players.
    #[arg(long, default_value_t = 0, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// Stop as soon as a sequential probability ratio test decides, as in
    /// elo0=0,elo1=10 (alpha and beta 0.05 unless given); --games is then
    /// the most games to play.
    #[arg(long)]
    sprt: Option<String>,
    /// A clock for both players: BASE+INCREMENT in seconds, such as
    /// 10+0.1; a move over the time left (plus 100 ms) loses on time.
    /// Without it each player searches with its own budget.
    #[arg(long)]
    tc: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The Elo difference and its 95% interval in words: `+35 ± 30 (95%)`,
/// or a bound alone when every game went one way.
fn elo_text(s: &MatchSummary) -> String {
    match (s.elo_low95.is_finite(), s.elo_high95.is_finite()) {
        (true, true) => format!("{:+.0} ± {:.0} (95%)", s.elo_diff, s.elo_ci95),
        (true, false) => format!(
            "at least {:+.0} (95%; every game won, so no upper bound)",
            s.elo_low95
        ),
        (false, true) => format!(
            "at most {:+.0} (95%; every game lost, so no lower bound)",
            s.elo_high95
        ),
        (false, false) => "unknown (no game)".to_string(),
    }
}

/// The SPRT's verdict on the games played: (LLR, lower bound, upper
/// bound, `H1` | `H0` | `inconclusive`).
type SprtReport = (f64, f64, f64, &'static str);

impl MatchArgs {
    /// Plays the match and returns what `match` prints.
    pub fn run(self) -> Result<String> {
        let tc = self
            .tc
            .as_deref()
            .map(TimeControl::parse)
            .transpose()
            .context("--tc")?;
        let m = Match {
            a: &self.spec_a,
            b: &self.spec_b,
            games: self.games,
            seed: self.seed,
            tc,
        };
        let start = Instant::now();
        let sprt = self
            .sprt
            .as_deref()
            .map(Sprt::parse)
            .transpose()
            .context("--sprt")?;
        let bar = progress_bar(m.games, "games");
        let progress = |done: u64| bar.set_position(done);
        let stop = |points: &[f64]| sprt.is_some_and(|t| t.state(points) != SprtState::Continue);
        let results = run_match_until(&m, self.threads.into(), &progress, &stop)?;
        bar.finish_and_clear();
        let points: Vec<f64> = results.iter().map(|g| g.a_points).collect();
        let seconds = start.elapsed().as_secs_f64();
        let sprt_report = sprt.map(|t| {
            let (lower, upper) = t.bounds();
            let verdict = match t.state(&points) {
                SprtState::AcceptH1 => "H1",
                SprtState::AcceptH0 => "H0",
                SprtState::Continue => "inconclusive",
            };
            (t.llr(&points), lower, upper, verdict)
        });
        let report = Report {
            summary: MatchSummary::from_points(&points),
            forfeits: Forfeits::of(&results),
            seconds,
            sprt: sprt_report,
        };
        Ok(if self.json {
            report.json()
        } else {
            report.text(&m, &results)
        })
    }
}

/// Forfeits by player, and the distinct reasons.
struct Forfeits {
    /// A's forfeits, B's forfeits.
    count: [u64; 2],
    /// `A: why` or `B: why`, one for each kind of forfeit (the reason
    /// without the engine's stderr, which may differ from game to game),
    /// in order of first appearance, with the number of games when more
    /// than one; at most [`MAX_REASONS`], then how many more kinds.
    reasons: Vec<String>,
}

/// A kind of forfeit: the player ("A" or "B") and the reason without the
/// engine's stderr ([`forfeit_kind`]).
type Kind<'a> = (&'static str, &'a str);

/// The most kinds of forfeit a match lists.
const MAX_REASONS: usize = 10;

impl Forfeits {
    fn of(results: &[MatchGame]) -> Forfeits {
        let mut count = [0u64; 2];
        // Each (who, kind) with its first full reason and its games, in
        // order of first appearance, and where each is in that list.
        let mut kinds: Vec<(Kind<'_>, (&str, u64))> = Vec::new();
        let mut at: HashMap<Kind<'_>, usize> = HashMap::new();
        for g in results {
            if let Some((color, why)) = &g.forfeit {
                let a_lost = (*color == yolah::Color::Black) == g.a_is_black;
                count[usize::from(!a_lost)] += 1;
                let key = (if a_lost { "A" } else { "B" }, forfeit_kind(why));
                match at.get(&key) {
                    Some(&i) => kinds[i].1 .1 += 1,
                    None => {
                        at.insert(key, kinds.len());
                        kinds.push((key, (why, 1)));
                    }
                }
            }
        }
        let mut reasons: Vec<String> = kinds
            .iter()
            .take(MAX_REASONS)
            .map(|&((who, _), (why, games))| match games {
                1 => format!("{who}: {why}"),
                n => format!("{who}: {why} ({n} games)"),
            })
            .collect();
        if kinds.len() > MAX_REASONS {
            reasons.push(format!(
                "… and {} more kinds of forfeit",
                kinds.len() - MAX_REASONS
            ));
        }
        Forfeits { count, reasons }
    }
}

/// What a match found, ready to print.
struct Report {
    summary: MatchSummary,
    forfeits: Forfeits,
    seconds: f64,
    sprt: Option<SprtReport>,
}

impl Report {
    /// One JSON object.
    fn json(&self) -> String {
        let s = &self.summary;
        let mut obj = json!({
            "games": s.games,
            "a_wins": s.a_wins,
            "b_wins": s.b_wins,
            "draws": s.draws,
            "a_points": s.a_points,
            "elo_diff": s.elo_diff,
            "elo_ci95": s.elo_ci95,
            "elo_low95": s.elo_low95,
            "elo_high95": s.elo_high95,
            "seconds": self.seconds,
            "a_forfeits": self.forfeits.count[0],
            "b_forfeits": self.forfeits.count[1],
            "forfeit_reasons": self.forfeits.reasons,
        });
        if let Some((llr, lower, upper, verdict)) = self.sprt {
            obj["sprt"] = json!({"llr": llr, "lower": lower, "upper": upper, "result": verdict});
        }
        format!("{obj}\n")
    }

    /// The result in words, with the games by colour.
    fn text(&self, m: &Match<'_>, results: &[MatchGame]) -> String {
        let (s, seconds) = (&self.summary, self.seconds);
        let sprt_line = match self.sprt {
            Some((llr, lower, upper, verdict)) => {
                let meaning = match verdict {
                    "H1" => "accept H1 (A is stronger by elo1 or more)",
                    "H0" => "accept H0 (A is not stronger by more than elo0)",
                    _ => "no decision within --games",
                };
                format!("SPRT: LLR {llr:.2} in [{lower:.2}, {upper:.2}]: {meaning}\n")
            }
            None => String::new(),
        };
        let by_colour = |black: bool| {
            let pts: Vec<f64> = results
                .iter()
                .filter(|g| g.a_is_black == black)
                .map(|g| g.a_points)
                .collect();
            let c = MatchSummary::from_points(&pts);
            format!("+{} ={} -{}", c.a_wins, c.draws, c.b_wins)
        };
        let forfeits = &self.forfeits;
        format!(
            "{} vs {}: {} game{}, +{} ={} -{}, {:.1} points ({:.1}%)\n\
             A as black {}, A as white {}\n\
             Elo difference {}, {seconds:.1} s\n{sprt_line}{}",
            m.a,
            m.b,
            s.games,
            if s.games == 1 { "" } else { "s" },
            s.a_wins,
            s.draws,
            s.b_wins,
            s.a_points,
            100.0 * s.a_points / s.games as f64,
            by_colour(true),
            by_colour(false),
            elo_text(s),
            if forfeits.reasons.is_empty() {
                String::new()
            } else {
                format!(
                    "forfeits: A {}, B {}\n{}\n",
                    forfeits.count[0],
                    forfeits.count[1],
                    forfeits.reasons.join("\n")
                )
            }
        )
    }
}
