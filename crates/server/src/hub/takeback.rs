//! Takebacks between people: one asks to take back their last move, the
//! other accepts or declines (a move declines it too). Accepted, the game
//! goes back to the position before that move, the other side's reply
//! included if it has made one, in the database first. Each side's clock
//! goes back to what it had after its last move that stands, as after a
//! restart, and the asker's clock runs.

use super::game::Game;
use super::{ConnId, Hub, Outbox};
use yolah::Color;

impl Hub {
    /// Asks to take back one's last move, or accepts the other person's
    /// request.
    pub(super) fn takeback(&mut self, conn: ConnId) -> Outbox {
        let (id, color) = match self.seated_in_play(conn) {
            Ok(seat) => seat,
            Err(e) => return Outbox::error(conn, e),
        };
        let game = self.games.get_mut(&id).expect("in play");
        if !game.between_people() {
            return Outbox::error(
                conn,
                "the computer does not take moves back: takebacks are between people",
            );
        }
        match game.takeback {
            Some(asker) if asker == color => {
                Outbox::error(conn, "you already ask to take back your move")
            }
            Some(asker) => self.take_back(conn, id, asker),
            None if game.last_move_by(color).is_none() => {
                Outbox::error(conn, "you have no move to take back")
            }
            None => {
                game.takeback = Some(color);
                self.broadcast(id)
            }
        }
    }

    pub(super) fn decline_takeback(&mut self, conn: ConnId) -> Outbox {
        let (id, color) = match self.seated_in_play(conn) {
            Ok(seat) => seat,
            Err(e) => return Outbox::error(conn, e),
        };
        let game = self.games.get_mut(&id).expect("in play");
        if game.takeback != Some(color.opponent()) {
            return Outbox::error(conn, "there is no takeback request to decline");
        }
        game.takeback = None;
        self.broadcast(id)
    }

    /// Takes `asker`'s last move of game `id` back, with everything after
    /// it, once the database has forgotten them; `conn` accepted.
    fn take_back(&mut self, conn: ConnId, id: u64, asker: Color) -> Outbox {
        let now = (self.now)();
        let game = &self.games[&id];
        let keep = game
            .last_move_by(asker)
            .expect("a request is only made with a move to take back");
        // The clocks after each move are in the database alone: read them
        // before changing anything, so a failure leaves the game as it was.
        let mut stored = match self.store.load(id) {
            Ok(Some(stored)) => stored,
            Ok(None) => return Outbox::error(conn, "the game is not in the database"),
            Err(e) => return Outbox::error(conn, format!("the takeback failed: {e}")),
        };
        if let Err(e) = self.store.take_back(id, keep) {
            return Outbox::error(conn, format!("the takeback was not saved: {e}"));
        }
        stored.moves.truncate(keep);
        stored.clocks.truncate(keep);
        let back = Game::from_stored(&stored, now);
        let game = self.games.get_mut(&id).expect("in memory");
        game.pos = back.pos;
        game.moves = back.moves;
        game.clock = back.clock;
        game.takeback = None;
        game.draw_offer = None;
        self.lobby_changed = true;
        self.broadcast(id)
    }
}
