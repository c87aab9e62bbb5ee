//! The hub as a state machine: every rule of the protocol, without sockets.

use super::*;
use crate::clock::TimeControl;
use crate::protocol::GameState;
use std::sync::Mutex;

mod clocks;
mod endings;
mod games;
mod lobby;

pub(super) const NEW_HUMAN: &str = r#"{"type":"new","opponent":"human","color":"black"}"#;

/// What the tests' hubs offer: `random`, and `alphabeta:depth=1`.
fn offer() -> Offer {
    Offer {
        levels: crate::levels(&["random".into(), "alphabeta:depth=1".into()]),
        clocks: ["1+0", "3+2"]
            .iter()
            .map(|c| TimeControl::parse(c).unwrap())
            .collect(),
        analysis: "alphabeta:depth=2".into(),
        analysis_time: Duration::from_millis(100),
    }
}

fn new_hub(store: Store, limits: Limits) -> Hub {
    let mut n = 0;
    Hub::new(
        offer(),
        Box::new(move || {
            n += 1;
            format!("key{n}")
        }),
        store,
        limits,
    )
}

pub(super) fn hub_with(limits: Limits) -> Hub {
    new_hub(Store::open(":memory:").unwrap(), limits)
}

pub(super) fn hub() -> Hub {
    hub_with(Limits::default())
}

/// A hub on a database file in a fresh directory (removed when the
/// returned guard drops: bind it first, so that it goes last), and a
/// second connection to that file.
pub(super) fn hub_on_file(
    name: &str,
) -> (
    tempfile::TempDir,
    Hub,
    rusqlite::Connection,
    std::path::PathBuf,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{name}.db"));
    let hub = new_hub(
        Store::open(path.to_str().unwrap()).unwrap(),
        Limits::default(),
    );
    let other = rusqlite::Connection::open(&path).unwrap();
    (dir, hub, other, path)
}

/// A clock the test moves by hand.
pub(super) fn manual_clock(h: &mut Hub) -> Arc<Mutex<Instant>> {
    let t = Arc::new(Mutex::new(Instant::now()));
    let read = Arc::clone(&t);
    h.set_clock(Arc::new(move || *read.lock().unwrap()));
    t
}

/// Moves a manual clock on by `by`, and returns the new time.
pub(super) fn advance(t: &Mutex<Instant>, by: Duration) -> Instant {
    let mut now = t.lock().unwrap();
    *now += by;
    *now
}

pub(super) fn errors(out: &Outbox) -> Vec<String> {
    out.messages
        .iter()
        .filter_map(|(_, m)| match m {
            ServerMessage::Error { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

pub(super) fn states(out: &Outbox) -> Vec<&GameState> {
    out.messages
        .iter()
        .filter_map(|(_, m)| match m {
            ServerMessage::State(s) => Some(&**s),
            _ => None,
        })
        .collect()
}

/// The last state `conn` was sent.
pub(super) fn state_to(out: &Outbox, conn: ConnId) -> &GameState {
    out.messages
        .iter()
        .rev()
        .find_map(|(c, m)| match m {
            ServerMessage::State(s) if *c == conn => Some(&**s),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no state to {conn}"))
}

/// The first welcome's key, invite and watch key.
pub(super) fn welcome(out: &Outbox) -> (String, Option<String>, Option<String>) {
    out.messages
        .iter()
        .find_map(|(_, m)| match m {
            ServerMessage::Welcome {
                key, invite, watch, ..
            } => Some((
                key.clone().unwrap_or_default(),
                invite.clone(),
                watch.clone(),
            )),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no welcome: {:?}", errors(out)))
}

/// The welcome `conn` was sent: its role and key.
pub(super) fn welcome_to(out: &Outbox, conn: ConnId) -> (String, String) {
    out.messages
        .iter()
        .find_map(|(c, m)| match m {
            ServerMessage::Welcome { role, key, .. } if *c == conn => {
                Some((role.clone(), key.clone().unwrap_or_default()))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no welcome to {conn}: {:?}", errors(out)))
}

/// Someone who came with a name cookie: `name`, their id made of it.
pub(super) fn person(name: &str) -> Person {
    Person {
        id: format!("{:0>16}", name.to_lowercase()),
        name: name.into(),
    }
}

pub(super) fn join(key: &str) -> String {
    format!(r#"{{"type":"join","key":"{key}"}}"#)
}

pub(super) fn mv(m: &str) -> String {
    format!(r#"{{"type":"move","move":"{m}"}}"#)
}

/// A game between connections 1 (Black) and 2 (White) with `clock`.
pub(super) fn two_people(h: &mut Hub, clock: &str) -> u64 {
    h.connect(1, "10.0.0.1", Some(person("Ada")));
    h.connect(2, "10.0.0.2", Some(person("Bob")));
    let out = h.handle(
        1,
        &format!(r#"{{"type":"new","opponent":"human","color":"black","clock":"{clock}"}}"#),
    );
    let (_, invite, _) = welcome(&out);
    let joined = h.handle(2, &join(&invite.unwrap()));
    assert!(errors(&joined).is_empty(), "{:?}", errors(&joined));
    state_to(&joined, 2).game
}
