//! The players by name: the one module that knows every player, and so the
//! top of the crate. A spec's name picks the player; the player checks the
//! rest of the spec itself ([`FromSpec`]).

use crate::alphabeta::AlphaBeta;
use crate::az::AlphaZero;
use crate::eval::Weights;
use crate::external::ExternalEngine;
use crate::limits::MAX_THREADS;
use crate::mc::MonteCarlo;
use crate::mcts::Mcts;
use crate::player::Player;
use crate::random::RandomPlayer;
use crate::spec::{FromSpec, Spec, SpecError};

/// A player's name and how to build it from a spec.
struct Entry {
    name: &'static str,
    keys: fn() -> Vec<&'static str>,
    build: fn(&Spec) -> Result<Box<dyn Player>, SpecError>,
}

/// The entry of the player `P` under `name`.
const fn entry<P: FromSpec + Player + 'static>(name: &'static str) -> Entry {
    Entry {
        name,
        keys: P::keys,
        build: |spec| Ok(Box::new(P::from_spec(spec)?)),
    }
}

/// Every player, [`PLAYER_NAMES`] first.
const PLAYERS: [Entry; 7] = [
    entry::<RandomPlayer>("random"),
    entry::<MonteCarlo>("mc"),
    entry::<Mcts>("mcts"),
    entry::<AlphaBeta<Weights>>("alphabeta"),
    // Each network format and width is its own type: `nn` builds whichever
    // `net=` loads.
    Entry {
        name: "nn",
        keys: crate::alphabeta::nn_keys,
        build: crate::alphabeta::nn_from_spec,
    },
    entry::<AlphaZero>("az"),
    entry::<ExternalEngine>("engine"),
];

/// The player names `from_spec` knows (besides `az:net=FILE`, a network
/// trained by `python/examples/alphazero.py`, and `engine:cmd=PROGRAM`, a
/// program of your own).
pub const PLAYER_NAMES: [&str; 5] = ["random", "mc", "mcts", "alphabeta", "nn"];

/// Builds a player from its spec, such as `mcts:time=100ms,c=1.2,seed=3`.
pub fn from_spec(text: &str) -> Result<Box<dyn Player>, SpecError> {
    let spec = Spec::parse(text.trim())?;
    let Some(entry) = PLAYERS.iter().find(|e| e.name == spec.name()) else {
        let others = ["az:net=FILE", "engine:cmd=PROGRAM"];
        return Err(spec.unknown_player(&[&PLAYER_NAMES[..], &others].concat()));
    };
    spec.allow(&(entry.keys)())?;
    (entry.build)(&spec)
}

/// The player of `text`, searching on `threads` threads unless the spec
/// says how many itself ([`with_default_threads`]). An error quotes `text`
/// as typed, not the spec with the threads added.
///
/// ```
/// use yolah_players::from_spec_with_threads;
///
/// let player = from_spec_with_threads("alphabeta:depth=3", 2).unwrap();
/// assert_eq!(player.spec(), "alphabeta:depth=3,threads=2");
/// let e = from_spec_with_threads("alphabeta:time=1", 2).err().unwrap();
/// assert!(e.to_string().starts_with("\"alphabeta:time=1\": time=1 is not"));
/// ```
pub fn from_spec_with_threads(text: &str, threads: usize) -> Result<Box<dyn Player>, SpecError> {
    // The added threads= is in range: what is wrong is in `text`, and
    // from_spec(text) says so quoting it.
    from_spec(&with_default_threads(text, threads))
        .map_err(|wider| from_spec(text).err().unwrap_or(wider))
}

/// `text` searching on `threads` threads (at most [`MAX_THREADS`]) unless
/// it says how many itself (or its player has a single thread): what
/// `yolah play` and `yolah serve` do with every core.
///
/// ```
/// use yolah_players::with_default_threads;
///
/// assert_eq!(with_default_threads("nn:time=1s", 4), "nn:time=1s,threads=4");
/// assert_eq!(with_default_threads("mcts", 2), "mcts:threads=2");
/// assert_eq!(with_default_threads("nn:threads=1", 4), "nn:threads=1");
/// assert_eq!(with_default_threads("random", 4), "random");
/// ```
pub fn with_default_threads(text: &str, threads: usize) -> String {
    let (name, rest) = text.split_once(':').unwrap_or((text, ""));
    let told = rest.split(',').any(|p| p.trim().starts_with("threads="));
    let threaded = PLAYERS
        .iter()
        .any(|e| e.name == name.trim() && (e.keys)().contains(&"threads"));
    let threads = threads.min(MAX_THREADS);
    if told || !threaded || threads <= 1 {
        return text.to_string();
    }
    if rest.is_empty() {
        format!("{name}:threads={threads}")
    } else {
        format!("{name}:{rest},threads={threads}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_a_player() {
        for (entry, name) in PLAYERS.iter().zip(PLAYER_NAMES) {
            assert_eq!(entry.name, name);
            assert!(from_spec(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn spec_errors_are_clear() {
        let e = |t: &str| from_spec(t).err().expect(t);
        let says = |t: &str, kind: fn(&SpecError) -> bool, words: &str| {
            let error = e(t);
            assert!(kind(&error), "{t}: {error:?}");
            let message = error.to_string();
            assert!(message.starts_with(&format!("{t:?}: ")), "{message}");
            assert!(message.contains(words), "{t}: {message}");
        };
        use SpecError as E;
        says(
            "chess",
            |e| matches!(e, E::UnknownPlayer { name, .. } if name == "chess"),
            "unknown player \"chess\"",
        );
        says(
            "mc:playouts=x",
            |e| matches!(e, E::BadValue { key, value, .. } if key == "playouts" && value == "x"),
            "playouts=x is not a whole number",
        );
        says(
            "mc:time=5",
            |e| matches!(e, E::BadValue { .. }),
            "time=5 is not a duration",
        );
        says(
            "mc:time=0ms",
            |e| matches!(e, E::BadValue { .. }),
            "time=0ms must be more than 0",
        );
        says(
            "mc:time=5ms playouts=3",
            |e| matches!(e, E::BadValue { .. }),
            "(options are separated by commas, not spaces)",
        );
        says(
            "mc,time=5ms",
            |e| matches!(e, E::UnknownPlayer { .. }),
            "options follow a colon, as in \"mc:time=5ms\"",
        );
        says(
            "mc:time=5ms,playouts=3",
            |e| matches!(e, E::Conflict { keys, .. } if keys == &["time", "playouts"]),
            "not both",
        );
        says(
            "random:depth=3",
            |e| matches!(e, E::UnknownKey { key, .. } if key == "depth"),
            "random has no option \"depth\"",
        );
        says(
            "mcts:c",
            |e| matches!(e, E::NotKeyValue { option, .. } if option == "c"),
            "key=value",
        );
        says(
            "alphabeta:depth=3,,seed=1",
            |e| matches!(e, E::NotKeyValue { option, .. } if option.is_empty()),
            "an option is empty (two commas in a row, or one at an end)",
        );
        says(
            "mcts:seed=1,seed=2",
            |e| matches!(e, E::DuplicateKey { key, .. } if key == "seed"),
            "seed is given twice",
        );
        says(
            "alphabeta:depth=0",
            |e| matches!(e, E::BadValue { .. }),
            "depth=0 must be from 1 to 128",
        );
        says(
            "nn:time=1s,hash=5000",
            |e| matches!(e, E::BadValue { .. }),
            "hash=5000 must be from 1 to 4096 (MiB)",
        );
        says(
            "mcts:iterations=0",
            |e| matches!(e, E::BadValue { .. }),
            "iterations=0 leaves nothing to search",
        );
        says(
            "mcts:net=x.bin",
            |e| matches!(e, E::Conflict { .. }),
            "net= needs eval=nn",
        );
        says(
            "engine",
            |e| matches!(e, E::MissingKey { key, .. } if key == "cmd"),
            "engine needs cmd=",
        );
        says(
            "engine:cmd=x,depth=500",
            |e| matches!(e, E::BadValue { .. }),
            "depth=500 must be from 1 to 128",
        );
        says(
            "engine:cmd=x,depth=5,time=1s",
            |e| matches!(e, E::Conflict { .. }),
            "at most one of",
        );
        says(
            "nn:net=/no/such/file",
            |e| matches!(e, E::Net { path, .. } if path == "/no/such/file"),
            "/no/such/file",
        );
        says(
            "alphabeta:weights=/no/such/file",
            |e| matches!(e, E::Weights { name, .. } if name == "/no/such/file"),
            "/no/such/file",
        );
    }

    #[test]
    fn the_threaded_players_take_every_core() {
        for name in ["alphabeta", "nn", "mcts"] {
            assert_eq!(with_default_threads(name, 3), format!("{name}:threads=3"));
        }
        for name in ["random", "mc", "engine:cmd=x"] {
            assert_eq!(with_default_threads(name, 3), name);
        }
    }
}
