//! The engine on any position: an `analyse` request becomes a search in
//! the pool, within the server's budget, and its answer goes back to the
//! connection that asked.
//!
//! Bounded three ways: one analysis per connection (a new request stops
//! the last), a number in all (the connections waiting for one), and a cost in the
//! sender's rate limit ([`ANALYSIS_COST`] messages' worth). The pool runs
//! game moves first and gives analyses at most half its threads, so
//! analyses cannot starve games.

use super::{ConnId, Hub, Outbox};
use crate::protocol::{Analysis, ServerMessage};
use crate::search::{Job, Outcome as SearchOutcome, Report, Target};
use yolah::{Color, Move, Position};
use yolah_players::{forfeit_kind, Stop};

/// What an `analyse` message costs in the sender's rate limit, beyond the
/// one every message costs: with the default rate (20 a second) a
/// connection may ask about one position a second on average.
pub const ANALYSIS_COST: u32 = 19;

impl Hub {
    pub(super) fn analyse(&mut self, conn: ConnId, text: &str) -> Outbox {
        let mut out = Outbox {
            cost: ANALYSIS_COST,
            ..Outbox::default()
        };
        let pos: Position = match text.parse() {
            Ok(pos) => pos,
            Err(e) => {
                out.error_to(conn, e.to_string());
                return out;
            }
        };
        if pos.is_game_over() {
            // Nothing to search: the margin is on the board.
            let margin = pos.margin(Color::Black);
            out.to(
                conn,
                ServerMessage::Analysis(Analysis {
                    position: text.to_string(),
                    score: Some(margin * 100),
                    black_win_rate: Some(match margin.signum() {
                        1 => 1.0,
                        -1 => 0.0,
                        _ => 0.5,
                    }),
                    line: Vec::new(),
                    depth: None,
                    solved_margin: Some(margin),
                    engine: self.offer.analysis.clone(),
                }),
            );
            return out;
        }
        let c = self.conns.get_mut(&conn).expect("connected");
        let replaced = c.analysis.take();
        if let Some((_, stop)) = &replaced {
            // Stopped: a worker skips it, or ends it within milliseconds.
            stop.request();
            self.analyses -= 1;
        }
        if self.analyses >= self.limits.max_analyses {
            out.error_to(
                conn,
                "the server is busy analysing other positions; try again in a moment",
            );
            return out;
        }
        let serial = self.next_analysis;
        self.next_analysis += 1;
        let stop = Stop::new();
        c.analysis = Some((serial, stop.clone()));
        let owner = c.addr.clone();
        self.analyses += 1;
        out.jobs.push(Job {
            target: Target::Analysis {
                conn,
                serial,
                position: text.to_string(),
            },
            pos,
            spec: self.offer.analysis.clone(),
            stop,
            owner,
            clock: None,
            budget: Some(self.offer.analysis_time),
        });
        out
    }

    /// An analysis ended: its answer goes to whoever asked, if they still
    /// wait for it.
    pub(super) fn finish_analysis(
        &mut self,
        conn: ConnId,
        serial: u64,
        job: &Job,
        outcome: SearchOutcome,
    ) -> Outbox {
        let Some(c) = self.conns.get_mut(&conn) else {
            return Outbox::default();
        };
        if c.analysis.as_ref().map(|(s, _)| *s) != Some(serial) {
            // Replaced by a newer request: this one was stopped, and no
            // longer counted.
            return Outbox::default();
        }
        c.analysis = None;
        self.analyses -= 1;
        let mut out = Outbox::default();
        match outcome {
            SearchOutcome::Analysed(report) => out.to(
                conn,
                ServerMessage::Analysis(for_black(job, &report, &self.offer.analysis)),
            ),
            SearchOutcome::Failed(why) => {
                // Players get the kind of failure; its stderr goes to the log.
                eprintln!("yolah serve: an analysis failed: {why}");
                out.error_to(conn, format!("the analysis failed: {}", forfeit_kind(&why)))
            }
            SearchOutcome::Move(_) | SearchOutcome::Cancelled => {}
        }
        out
    }
}

/// The report, turned to Black's point of view (the bar's).
fn for_black(job: &Job, report: &Report, engine: &str) -> Analysis {
    let sign = match job.pos.side_to_move() {
        Color::Black => 1,
        Color::White => -1,
    };
    let position = match &job.target {
        Target::Analysis { position, .. } => position.clone(),
        Target::Move { .. } => job.pos.to_text(),
    };
    let a = &report.analysis;
    Analysis {
        position,
        score: a.score.centipoints().map(|c| sign * c),
        black_win_rate: a
            .score
            .win_rate()
            .map(|p| if sign == 1 { p } else { 1.0 - p }),
        line: a.pv.iter().map(Move::to_string).collect(),
        depth: a.depth,
        solved_margin: report.solved_margin.map(|m| sign * m),
        engine: engine.to_string(),
    }
}
