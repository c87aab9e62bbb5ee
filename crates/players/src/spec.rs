//! Player specs: `NAME[:key=value,…]`, parsed and checked against the keys
//! each player takes, with errors that name the bad part.

use crate::alphabeta::{self, AlphaBeta};
use crate::mc::MonteCarlo;
use crate::mcts::Mcts;
use crate::nn::{FloatNet, QuantNet};
use crate::random::RandomPlayer;
use crate::{Budget, Player};
use std::fmt;
use std::time::Duration;

/// Why a spec string does not describe a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// A parsed spec: the name and its `key=value` options, checked against
/// the keys a player accepts.
#[derive(Debug)]
pub(crate) struct Spec<'a> {
    pub(crate) text: &'a str,
    pub(crate) name: &'a str,
    options: Vec<(&'a str, &'a str)>,
}

impl<'a> Spec<'a> {
    pub(crate) fn parse(text: &'a str) -> Result<Spec<'a>, SpecError> {
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let mut options = Vec::new();
        for part in rest.split(',').filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| SpecError(format!("{text:?}: option {part:?} is not key=value")))?;
            if options.iter().any(|&(k, _)| k == key) {
                return Err(SpecError(format!("{text:?}: {key} is given twice")));
            }
            options.push((key, value));
        }
        Ok(Spec {
            text,
            name,
            options,
        })
    }

    pub(crate) fn error(&self, message: impl fmt::Display) -> SpecError {
        SpecError(format!("{:?}: {message}", self.text))
    }

    /// Fails on keys outside `allowed`.
    pub(crate) fn allow(&self, allowed: &[&str]) -> Result<(), SpecError> {
        match self.options.iter().find(|(k, _)| !allowed.contains(k)) {
            Some((k, _)) => Err(self.error(format!(
                "{} has no option {k:?} (it takes {})",
                self.name,
                allowed.join(", ")
            ))),
            None => Ok(()),
        }
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        self.options
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    pub(crate) fn seed(&self) -> Result<u64, SpecError> {
        self.number("seed").map(|s| s.unwrap_or(0))
    }

    pub(crate) fn number(&self, key: &str) -> Result<Option<u64>, SpecError> {
        self.get(key)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| self.error(format!("{key}={v} is not a whole number")))
            })
            .transpose()
    }

    pub(crate) fn float(&self, key: &str) -> Result<Option<f64>, SpecError> {
        self.get(key)
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| self.error(format!("{key}={v} is not a non-negative number")))
            })
            .transpose()
    }

    pub(crate) fn text(&self, key: &str) -> Option<&'a str> {
        self.get(key)
    }

    /// The `time=` option, if given.
    pub(crate) fn time(&self) -> Result<Option<Duration>, SpecError> {
        self.get("time")
            .map(|t| {
                parse_duration(t).ok_or_else(|| {
                    self.error(format!("time={t} is not a duration like 100ms or 2s"))
                })
            })
            .transpose()
    }

    /// The budget from `time=` or the count key; exactly one may be given,
    /// `default` applies when neither is.
    pub(crate) fn budget(&self, count_key: &str, default: Budget) -> Result<Budget, SpecError> {
        match (self.time()?, self.number(count_key)?) {
            (Some(_), Some(_)) => Err(self.error(format!("give time= or {count_key}=, not both"))),
            (Some(t), None) => Ok(Budget::Time(t)),
            (None, Some(0)) => Err(self.error(format!("{count_key}=0 leaves nothing to search"))),
            (None, Some(n)) => Ok(Budget::Count(n)),
            (None, None) => Ok(default),
        }
    }
}

/// Parses `100ms`, `2s`, `1.5s`, `500us`, `10m` or `1h` into a positive
/// duration (below a million seconds).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let units = [
        ("ms", 1e-3),
        ("us", 1e-6),
        ("s", 1.0),
        ("m", 60.0),
        ("h", 3600.0),
    ];
    let (number, scale) = units
        .iter()
        .find_map(|&(suffix, scale)| Some((text.strip_suffix(suffix)?, scale)))?;
    let seconds = number.parse::<f64>().ok()? * scale;
    (seconds.is_finite() && seconds > 0.0 && seconds < 1e6)
        .then(|| Duration::from_secs_f64(seconds))
}

/// The player names `from_spec` knows.
pub const PLAYER_NAMES: [&str; 5] = ["random", "mc", "mcts", "alphabeta", "nn"];

/// `nn`: alpha-beta with the network evaluation (`net=FILE` for another
/// network than the shipped one).
fn nn_from_spec(spec: &Spec) -> Result<AlphaBeta<QuantNet>, SpecError> {
    let keys = ["depth", "nodes", "time", "threads", "net", "seed"];
    spec.allow(&[&keys[..], &alphabeta::OPTION_KEYS[..]].concat())?;
    let budget = alphabeta::parse_budget(spec)?;
    let net = load_net(spec)?;
    let mut player = AlphaBeta::with_evaluator(budget, net, spec.seed()?);
    player.set_spec(spec.text);
    player.set_threads(alphabeta::parse_threads(spec)?);
    player.set_options(alphabeta::parse_options(spec)?);
    Ok(player)
}

/// The network named by the spec's `net=FILE`, or the shipped one.
pub(crate) fn load_net(spec: &Spec) -> Result<QuantNet, SpecError> {
    match spec.text("net") {
        Some(path) => {
            let float = FloatNet::load(path).map_err(|e| spec.error(e))?;
            QuantNet::new(&float).map_err(|e| spec.error(e))
        }
        None => Ok(QuantNet::default_net()),
    }
}

/// Builds a player from its spec, such as `mcts:time=100ms,c=1.2,seed=3`.
pub fn from_spec(text: &str) -> Result<Box<dyn Player>, SpecError> {
    let spec = Spec::parse(text.trim())?;
    Ok(match spec.name {
        "random" => Box::new(RandomPlayer::from_spec(&spec)?),
        "mc" => Box::new(MonteCarlo::from_spec(&spec)?),
        "mcts" => Box::new(Mcts::from_spec(&spec)?),
        "alphabeta" => Box::new(AlphaBeta::from_spec(&spec)?),
        "nn" => Box::new(nn_from_spec(&spec)?),
        "engine" => Box::new(crate::external::ExternalEngine::from_spec(&spec)?),
        other => {
            return Err(spec.error(format!(
                "unknown player {other:?} (players: {}, engine:cmd=PROGRAM)",
                PLAYER_NAMES.join(", ")
            )))
        }
    })
}

/// The spec with its `seed=` replaced by `seed` (added if absent): how a
/// match gives every game its own, reproducible randomness.
pub fn with_seed(text: &str, seed: u64) -> String {
    let (name, rest) = text.split_once(':').unwrap_or((text, ""));
    let mut parts: Vec<String> = rest
        .split(',')
        .filter(|p| !p.is_empty() && !p.starts_with("seed="))
        .map(str::to_string)
        .collect();
    parts.push(format!("seed={seed}"));
    format!("{name}:{}", parts.join(","))
}

/// The players that take `threads=`.
const THREADED: [&str; 3] = ["alphabeta", "nn", "mcts"];

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
    if told || !THREADED.contains(&name.trim()) || threads <= 1 {
        return text.to_string();
    }
    if rest.is_empty() {
        format!("{name}:threads={threads}")
    } else {
        format!("{name}:{rest},threads={threads}")
    }
}

/// The machine's cores (1 if it cannot tell).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("100ms"), Some(Duration::from_millis(100)));
        assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250us"), Some(Duration::from_micros(250)));
        assert_eq!(parse_duration("10m"), Some(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
        for bad in ["", "100", "ms", "-1s", "0s", "NaNs", "infs", "1e9s"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
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
        for name in PLAYER_NAMES {
            assert!(from_spec(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn with_seed_replaces_the_seed() {
        assert_eq!(with_seed("mcts:seed=4,c=1", 9), "mcts:c=1,seed=9");
        assert_eq!(with_seed("random", 2), "random:seed=2");
    }
}
