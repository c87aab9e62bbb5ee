//! Playing: a person's moves, the computer's, the clock and its flag,
//! resignations and draws, and the saves behind every one of them.
//!
//! Every move and every ending is committed to the database before anyone
//! hears of it. A computer's move the database refuses is saved again
//! later, each wait twice the last, and never while the hub waits; after
//! [`SAVE_ATTEMPTS`] the game is stopped and its people told, so a broken
//! disk costs a few log lines per game, not a loop.

use super::game::{Ending, Pending};
use super::{ConnId, Hub, Outbox};
use crate::clock::{flag_result, Clock, Flagged};
use crate::protocol::ServerMessage;
use crate::search::{Job, Outcome as SearchOutcome};
use crate::store::{self, Role, StoreError};
use std::time::{Duration, Instant};
use yolah::{Color, Move, Position};
use yolah_players::forfeit_kind;

/// Times the hub tries to save a computer's move before it stops the game.
pub(super) const SAVE_ATTEMPTS: u32 = 5;
/// The wait before the second attempt; each later wait doubles it.
pub(super) const FIRST_RETRY: Duration = Duration::from_millis(100);

/// Why a game that was played to its end ended.
const NO_MOVES_LEFT: &str = "neither side can move";

/// A clock after a move, and the mover's time left.
type Timed = Option<(Clock, Duration)>;

/// `1-0` or `0-1`: `winner` wins.
fn win_for(winner: Color) -> &'static str {
    match winner {
        Color::Black => "1-0",
        Color::White => "0-1",
    }
}

impl Hub {
    /// The seat `conn` plays in a game that is in play, or why not.
    pub(super) fn seated_in_play(&self, conn: ConnId) -> Result<(u64, Color), String> {
        let Some((id, role)) = self.joined(conn) else {
            return Err("join or start a game first".into());
        };
        let Role::Seat(color) = role else {
            return Err("watchers cannot play".into());
        };
        let game = self.games.get(&id).ok_or("join or start a game first")?;
        if let Some(why) = &game.stopped {
            return Err(why.clone());
        }
        if game.is_over() {
            return Err("the game is over".into());
        }
        Ok((id, color))
    }

    pub(super) fn play(&mut self, conn: ConnId, text: &str) -> Outbox {
        let (id, color) = match self.seated_in_play(conn) {
            Ok(seat) => seat,
            Err(e) => return Outbox::error(conn, e.replace("cannot play", "cannot move")),
        };
        let now = (self.now)();
        let game = &self.games[&id];
        if game.pos.side_to_move() != color {
            return Outbox::error(
                conn,
                format!("it is {}'s turn", game.pos.side_to_move().name()),
            );
        }
        let m: Move = match text.parse() {
            Ok(m) => m,
            Err(e) => return Outbox::error(conn, e.to_string()),
        };
        if let Err(e) = game.pos.check_move(m) {
            return Outbox::error(conn, format!("illegal: {e}"));
        }
        let timed = match game.clock.map(|c| c.after_move(color, now)) {
            None => None,
            Some(Ok(after)) => Some(after),
            Some(Err(Flagged)) => {
                // The flag fell before the move came: the clock decides.
                let mut out = self.flag(id, now);
                out.error_to(conn, "your time ran out before the move arrived");
                return out;
            }
        };
        match self.commit(id, m, timed) {
            Ok(()) => self.broadcast(id),
            Err(e) => Outbox::error(conn, format!("the move was not played: {e}")),
        }
    }

    /// Stores `m` (a legal move, by the side to move) and its forced
    /// passes, then plays them: the database has every move before any
    /// client hears of it.
    fn commit(&mut self, id: u64, m: Move, timed: Timed) -> Result<(), StoreError> {
        let game = self
            .games
            .get_mut(&id)
            .expect("committing to a game in memory");
        let (moves, end) = game.moves_after(m);
        let ending = end.is_game_over().then(|| Ending {
            result: end.outcome().notation().to_string(),
            reason: NO_MOVES_LEFT.to_string(),
        });
        let left = timed.map(|(_, left)| left);
        let stored: Vec<(Move, Option<Duration>)> = moves
            .iter()
            .enumerate()
            .map(|(i, &mv)| (mv, if i == 0 { left } else { None }))
            .collect();
        self.store.add_moves(
            id,
            game.moves.len(),
            &stored,
            ending.as_ref().map(|e| store::Ending {
                result: &e.result,
                reason: &e.reason,
            }),
        )?;
        let mover = game.pos.side_to_move();
        game.pos = end;
        game.moves.extend(moves);
        if let Some((clock, _)) = timed {
            game.clock = Some(clock);
        }
        // A move answers the other side's draw offer: no; and any request
        // to take back a move is for a position that has gone.
        if game.draw_offer == Some(mover.opponent()) {
            game.draw_offer = None;
        }
        game.takeback = None;
        self.lobby_changed = true;
        if let Some(ending) = ending {
            self.conclude(id, ending);
        }
        Ok(())
    }

    /// Ends game `id` in memory (its ending is already stored).
    fn conclude(&mut self, id: u64, ending: Ending) {
        let now = (self.now)();
        let Some(game) = self.games.get_mut(&id) else {
            return;
        };
        let to_move = game.pos.side_to_move();
        if let Some(clock) = game.clock.as_mut() {
            clock.stop(to_move, now);
        }
        game.ending = Some(ending);
        game.finished_at = Some(now);
        game.draw_offer = None;
        game.takeback = None;
        game.pending = None;
        if let Some(stop) = game.search.take() {
            stop.request();
        }
        self.lobby_changed = true;
        self.rate(id);
    }

    /// Ends game `id` without a move (a resignation, a flag, a draw), once
    /// the database has it.
    fn end(&mut self, id: u64, ending: Ending) -> Result<(), StoreError> {
        let plies = self.games[&id].moves.len();
        self.store.end_game(
            id,
            plies,
            store::Ending {
                result: &ending.result,
                reason: &ending.reason,
            },
        )?;
        self.conclude(id, ending);
        Ok(())
    }

    /// The side to move's flag fell at `now`.
    fn flag(&mut self, id: u64, now: Instant) -> Outbox {
        let pos: Position = self.games[&id].pos;
        let (result, reason) = flag_result(&pos, pos.side_to_move());
        let ending = Ending {
            result: result.to_string(),
            reason,
        };
        match self.end(id, ending) {
            Ok(()) => self.broadcast(id),
            Err(e) => self.stop_game(
                id,
                now,
                format!("this game is stopped: its result could not be saved ({e})"),
            ),
        }
    }

    /// What was due in game `id` by `now`: a save to try again, a flag.
    pub(super) fn due(&mut self, id: u64, now: Instant) -> Outbox {
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        if game.pending.as_ref().is_some_and(|p| p.retry_at <= now) {
            let p = game.pending.take().expect("checked above");
            let timed = p.clock.map(|(clock, left)| (clock.restarted_at(now), left));
            return self.save_computer_move(id, p.mv, timed, p.attempts + 1);
        }
        let flag_fell = game.pending.is_none()
            && game.in_play()
            && game
                .clock
                .and_then(|c| c.deadline(game.pos.side_to_move()))
                .is_some_and(|d| d <= now);
        if flag_fell {
            return self.flag(id, now);
        }
        Outbox::default()
    }

    /// Stops game `id` in this process: it cannot be saved.
    fn stop_game(&mut self, id: u64, now: Instant, why: String) -> Outbox {
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        game.stopped = Some(why.clone());
        game.finished_at = Some(now);
        game.pending = None;
        let to_move = game.pos.side_to_move();
        if let Some(clock) = game.clock.as_mut() {
            clock.stop(to_move, now);
        }
        if let Some(stop) = game.search.take() {
            stop.request();
        }
        self.lobby_changed = true;
        let mut out = Outbox::default();
        for conn in game.players().collect::<Vec<_>>() {
            out.error_to(conn, why.clone());
        }
        out.extend(self.broadcast(id));
        out
    }

    /// A search for game `id` finished: play its move if the game still
    /// waits for it. A failed search, or a move the rules refuse, is
    /// replaced by a random legal move and the seated players are told, so
    /// a game never waits forever for a computer.
    pub(super) fn finish_search(&mut self, id: u64, job: &Job, outcome: SearchOutcome) -> Outbox {
        let now = (self.now)();
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        if game.pos != job.pos || game.search.is_none() || !game.in_play() {
            return Outbox::default();
        }
        game.search = None;
        let (m, problem) = match outcome {
            SearchOutcome::Cancelled | SearchOutcome::Analysed(_) => return Outbox::default(),
            SearchOutcome::Move(m) => match game.pos.check_move(m) {
                Ok(()) => (m, None),
                Err(e) => (
                    game.pos.random_move(&mut self.rng),
                    Some(format!("{} chose an illegal move {m}: {e}", job.spec)),
                ),
            },
            SearchOutcome::Failed(why) => (game.pos.random_move(&mut self.rng), Some(why)),
        };
        let mut out = Outbox::default();
        if let Some(why) = &problem {
            eprintln!("yolah serve: game {id}: {why}; a random move is played instead");
            for conn in game.players().collect::<Vec<_>>() {
                out.error_to(
                    conn,
                    // The engine's stderr stays in the server's log.
                    format!(
                        "the computer's search failed ({}); it played a random move",
                        forfeit_kind(why)
                    ),
                );
            }
        }
        let mover = game.pos.side_to_move();
        let timed = match game.clock.map(|c| c.after_move(mover, now)) {
            None => None,
            Some(Ok(after)) => Some(after),
            Some(Err(Flagged)) => {
                out.extend(self.flag(id, now));
                return out;
            }
        };
        out.extend(self.save_computer_move(id, m, timed, 1));
        out
    }

    /// Saves the computer's move `m` in game `id` (this is attempt number
    /// `attempt`) and plays it; or schedules the next attempt; or, after
    /// the last, stops the game.
    fn save_computer_move(&mut self, id: u64, m: Move, timed: Timed, attempt: u32) -> Outbox {
        let error = match self.commit(id, m, timed) {
            Ok(()) => return self.broadcast(id),
            Err(e) => e,
        };
        eprintln!(
            "yolah serve: game {id}: the computer's move was not saved \
             (attempt {attempt} of {SAVE_ATTEMPTS}): {error}"
        );
        let now = (self.now)();
        if attempt >= SAVE_ATTEMPTS {
            // Stopped: nothing more happens to it in memory; it leaves after
            // the retention time, and its keys load it again from the
            // database (where the computer will think again) once the disk
            // is back.
            return self.stop_game(
                id,
                now,
                format!(
                    "this game is stopped: the server could not save the computer's move \
                     ({error}); come back later with your link"
                ),
            );
        }
        let Some(game) = self.games.get_mut(&id) else {
            return Outbox::default();
        };
        let mut out = Outbox::default();
        if attempt == 1 {
            for conn in game.players().collect::<Vec<_>>() {
                out.error_to(
                    conn,
                    format!("the computer's move was not saved ({error}); trying again"),
                );
            }
        }
        game.pending = Some(Pending {
            mv: m,
            clock: timed,
            attempts: attempt,
            retry_at: now + FIRST_RETRY * 2u32.pow(attempt - 1),
        });
        out.extend(self.refresh_wake(id));
        out
    }

    pub(super) fn resign(&mut self, conn: ConnId) -> Outbox {
        let (id, color) = match self.seated_in_play(conn) {
            Ok(seat) => seat,
            Err(e) => return Outbox::error(conn, e),
        };
        let ending = Ending {
            result: win_for(color.opponent()).to_string(),
            reason: format!("{} resigned", color.name()),
        };
        match self.end(id, ending) {
            Ok(()) => self.broadcast(id),
            Err(e) => Outbox::error(conn, format!("the resignation was not saved: {e}")),
        }
    }

    /// Offers a draw, or accepts the other person's offer.
    pub(super) fn offer_draw(&mut self, conn: ConnId) -> Outbox {
        let (id, color) = match self.seated_in_play(conn) {
            Ok(seat) => seat,
            Err(e) => return Outbox::error(conn, e),
        };
        let game = self.games.get_mut(&id).expect("in play");
        if !game.between_people() {
            return Outbox::error(
                conn,
                "the computer plays on: draws are agreed between people",
            );
        }
        if game.draw_offer == Some(color) {
            return Outbox::error(conn, "you already offer a draw");
        }
        if game.draw_offer != Some(color.opponent()) {
            game.draw_offer = Some(color);
            return self.broadcast(id);
        }
        let ending = Ending {
            result: "1/2-1/2".into(),
            reason: "draw agreed".into(),
        };
        match self.end(id, ending) {
            Ok(()) => self.broadcast(id),
            Err(e) => Outbox::error(conn, format!("the draw was not saved: {e}")),
        }
    }

    pub(super) fn decline_draw(&mut self, conn: ConnId) -> Outbox {
        let (id, color) = match self.seated_in_play(conn) {
            Ok(seat) => seat,
            Err(e) => return Outbox::error(conn, e),
        };
        let game = self.games.get_mut(&id).expect("in play");
        if game.draw_offer != Some(color.opponent()) {
            return Outbox::error(conn, "there is no draw offer to decline");
        }
        game.draw_offer = None;
        self.broadcast(id)
    }

    pub(super) fn history(&mut self, conn: ConnId) -> Outbox {
        let Some(game) = self.joined(conn).and_then(|(id, _)| self.games.get(&id)) else {
            return Outbox::error(conn, "join or start a game first");
        };
        let mut pos = Position::START;
        let mut positions = vec![pos.to_text()];
        for &m in &game.moves {
            pos.play(m);
            positions.push(pos.to_text());
        }
        let mut out = Outbox::default();
        out.to(
            conn,
            ServerMessage::History {
                positions,
                moves: game.moves.iter().map(Move::to_string).collect(),
            },
        );
        out
    }
}
