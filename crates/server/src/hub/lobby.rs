//! The lobby: open challenges (seeks) that anyone may accept, and the list
//! of games being played. Connections that asked (`lobby`) hear of it when
//! they ask and then at most once a second while it changes
//! ([`Hub::lobby_tick`]), so a busy server costs each of them one message a
//! second, not one per move.
//!
//! A challenge lives as long as the connection that opened it (and until
//! it is accepted, withdrawn, or its challenger sits down to a game): it is
//! a person waiting now, so it is not stored; after a restart nobody waits.
//! Challenges are bounded in all and per client address.

use super::seats::Start;
use super::{ConnId, Hub, Outbox};
use crate::clock::{TimeControl, UNTIMED};
use crate::protocol::{LiveGame, Lobby, SeekLine, ServerMessage};
use crate::rating::Rating;

/// Games in the lobby's live list (`GET /live` pages through the rest).
pub const LIVE_IN_LOBBY: usize = 20;

/// An open challenge.
struct Seek {
    id: u64,
    conn: ConnId,
    addr: String,
    name: Option<String>,
    /// `black`, `white` or `random`: the challenger's colour.
    color: String,
    control: Option<TimeControl>,
}

/// The open challenges, oldest first.
#[derive(Default)]
pub(super) struct Seeks {
    open: Vec<Seek>,
    next_id: u64,
}

impl Hub {
    /// `conn` hears of the lobby: now, and whenever it changes. Asking
    /// again changes nothing (a flood of `lobby` earns no snapshots).
    pub(super) fn subscribe(&mut self, conn: ConnId) -> Outbox {
        match self.conns.get_mut(&conn) {
            Some(c) if c.lobby => return Outbox::default(),
            Some(c) => c.lobby = true,
            None => return Outbox::default(),
        }
        self.snapshot(conn)
    }

    /// The lobby as it is now, for `conn` alone.
    fn snapshot(&self, conn: ConnId) -> Outbox {
        let (seeks, live, live_total) = self.lobby_parts();
        let mut out = Outbox::default();
        out.to(conn, lobby_for(conn, &seeks, &live, live_total));
        out
    }

    pub(super) fn seek(&mut self, conn: ConnId, color: &str, clock: &str) -> Outbox {
        if !["black", "white", "random"].contains(&color) {
            return Outbox::error(
                conn,
                format!("color {color:?} is not black, white or random"),
            );
        }
        let control = match TimeControl::choose(clock, &self.offer.clocks) {
            Ok(c) => c,
            Err(e) => return Outbox::error(conn, e),
        };
        if self.conns[&conn].seek.is_some() {
            return Outbox::error(
                conn,
                "you already have an open challenge; withdraw it first",
            );
        }
        let mut out = match self.free_for_another(conn) {
            Ok(out) => out,
            Err(e) => return Outbox::error(conn, e),
        };
        let addr = self.conns[&conn].addr.clone();
        let mine = self.seeks.open.iter().filter(|s| s.addr == addr).count();
        if mine >= self.limits.max_seeks_per_addr {
            out.error_to(
                conn,
                format!("your address has {mine} open challenges, the most it may have"),
            );
            return out;
        }
        if self.seeks.open.len() >= self.limits.max_seeks {
            out.error_to(
                conn,
                format!(
                    "there are {} open challenges, the most the server holds; accept one, \
                     or try again later",
                    self.seeks.open.len()
                ),
            );
            return out;
        }
        self.seeks.next_id += 1;
        let id = self.seeks.next_id;
        let c = self.conns.get_mut(&conn).expect("checked above");
        c.seek = Some(id);
        self.seeks.open.push(Seek {
            id,
            conn,
            addr,
            name: c.name.clone(),
            color: color.to_string(),
            control,
        });
        self.lobby_changed = true;
        c.lobby = true;
        out.extend(self.snapshot(conn));
        out
    }

    pub(super) fn cancel_seek(&mut self, conn: ConnId) -> Outbox {
        if self.conns[&conn].seek.is_none() {
            return Outbox::error(conn, "you have no open challenge");
        }
        let mut out = self.withdraw_seek(conn);
        out.extend(self.snapshot(conn));
        out
    }

    /// Takes `conn`'s challenge, if any, off the lobby.
    pub(super) fn withdraw_seek(&mut self, conn: ConnId) -> Outbox {
        let Some(id) = self.conns.get_mut(&conn).and_then(|c| c.seek.take()) else {
            return Outbox::default();
        };
        self.seeks.open.retain(|s| s.id != id);
        self.lobby_changed = true;
        Outbox::default()
    }

    pub(super) fn accept(&mut self, conn: ConnId, id: u64) -> Outbox {
        let Some(seek) = self.seeks.open.iter().find(|s| s.id == id) else {
            return Outbox::error(conn, format!("challenge {id} is no longer open"));
        };
        if seek.conn == conn {
            return Outbox::error(conn, "this is your own challenge");
        }
        let (challenger, owner, control) = (seek.conn, seek.addr.clone(), seek.control);
        let challenger_is_black = match seek.color.as_str() {
            "black" => true,
            "white" => false,
            _ => self.rng.below(2) == 0,
        };
        let mut out = match self.free_for_another(conn) {
            Ok(out) => out,
            Err(e) => return Outbox::error(conn, e),
        };
        let conns = if challenger_is_black {
            [Some(challenger), Some(conn)]
        } else {
            [Some(conn), Some(challenger)]
        };
        match self.start(Start {
            players: ["human".into(), "human".into()],
            conns,
            owner,
            control,
        }) {
            Ok(started) => out.extend(started),
            Err(e) => out.error_to(conn, e),
        }
        out
    }

    /// The games being played, newest first: `limit` from `offset` on, and
    /// how many there are.
    pub fn live(&self, offset: usize, limit: usize) -> (Vec<LiveGame>, usize) {
        let mut ids: Vec<u64> = self
            .games
            .values()
            .filter(|g| g.is_live())
            .map(|g| g.id)
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        let page = ids
            .iter()
            .skip(offset)
            .take(limit)
            .map(|id| self.games[id].live_line())
            .collect();
        (page, ids.len())
    }

    fn lobby_parts(&self) -> (Vec<(ConnId, SeekLine)>, Vec<LiveGame>, usize) {
        let seeks = self
            .seeks
            .open
            .iter()
            .map(|s| {
                (
                    s.conn,
                    SeekLine {
                        id: s.id,
                        name: s.name.clone(),
                        rating: self
                            .conns
                            .get(&s.conn)
                            .and_then(|c| c.rating)
                            .map(Rating::shown),
                        color: s.color.clone(),
                        clock: s.control.map_or(UNTIMED.to_string(), |c| c.to_string()),
                        yours: false,
                    },
                )
            })
            .collect();
        let (live, total) = self.live(0, LIVE_IN_LOBBY);
        (seeks, live, total)
    }

    /// If the lobby changed since the last tick, tells every connection that
    /// listens. Called once a second.
    pub fn lobby_tick(&mut self) -> Outbox {
        if !std::mem::take(&mut self.lobby_changed) || !self.conns.values().any(|c| c.lobby) {
            return Outbox::default();
        }
        let (seeks, live, total) = self.lobby_parts();
        let mut out = Outbox::default();
        for (&conn, c) in &self.conns {
            if c.lobby {
                out.to(conn, lobby_for(conn, &seeks, &live, total));
            }
        }
        out
    }
}

/// The lobby as `conn` sees it (its own challenge marked).
fn lobby_for(
    conn: ConnId,
    seeks: &[(ConnId, SeekLine)],
    live: &[LiveGame],
    live_total: usize,
) -> ServerMessage {
    ServerMessage::Lobby(Lobby {
        seeks: seeks
            .iter()
            .map(|(owner, line)| SeekLine {
                yours: *owner == conn,
                ..line.clone()
            })
            .collect(),
        live: live.to_vec(),
        live_total,
    })
}
