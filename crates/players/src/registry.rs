//! The players by name: the one module that knows every player, and so the
//! top of the crate. A spec's name picks the player; the player checks the
//! rest of the spec itself ([`FromSpec`]).

use crate::alphabeta::AlphaBeta;
use crate::eval::Weights;
use crate::external::ExternalEngine;
use crate::mc::MonteCarlo;
use crate::mcts::Mcts;
use crate::nn::QuantNet;
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
const PLAYERS: [Entry; 6] = [
    entry::<RandomPlayer>("random"),
    entry::<MonteCarlo>("mc"),
    entry::<Mcts>("mcts"),
    entry::<AlphaBeta<Weights>>("alphabeta"),
    entry::<AlphaBeta<QuantNet>>("nn"),
    entry::<ExternalEngine>("engine"),
];

/// The player names `from_spec` knows (besides `engine:cmd=PROGRAM`, a
/// program of your own).
pub const PLAYER_NAMES: [&str; 5] = ["random", "mc", "mcts", "alphabeta", "nn"];

/// Builds a player from its spec, such as `mcts:time=100ms,c=1.2,seed=3`.
pub fn from_spec(text: &str) -> Result<Box<dyn Player>, SpecError> {
    let spec = Spec::parse(text.trim())?;
    let Some(entry) = PLAYERS.iter().find(|e| e.name == spec.name()) else {
        let names = PLAYER_NAMES.join(", ");
        return Err(spec.unknown_player(&format!("players: {names}, engine:cmd=PROGRAM")));
    };
    spec.allow(&(entry.keys)())?;
    (entry.build)(&spec)
}

/// `text` searching on `threads` threads unless it says how many itself (or
/// its player has a single thread): what `yolah play` and `yolah serve` do
/// with every core.
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
        let e = |t: &str| {
            from_spec(t)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(e("chess").contains("unknown player"));
        assert!(e("mc:playouts=x").contains("not a whole number"));
        assert!(e("mc:time=5").contains("duration"));
        assert!(e("mc:time=5ms,playouts=3").contains("not both"));
        assert!(e("random:depth=3").contains("has no option"));
        assert!(e("mcts:c").contains("key=value"));
        assert!(e("mcts:seed=1,seed=2").contains("twice"));
        assert!(e("alphabeta:depth=0").contains("depth=0"));
        assert!(e("mcts:iterations=0").contains("nothing to search"));
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
