//! Player specs: `NAME[:key=value,…]`, parsed into a [`Spec`] whose typed
//! accessors (seed, threads, budget, network, numbers, durations) check
//! each value, with errors that name the bad part. Each player builds
//! itself from a parsed spec ([`FromSpec`]); which names mean which player
//! is the registry's business, not this module's.

use crate::budget::Budget;
use crate::eval::{Weights, WeightsError};
use crate::limits::MAX_THREADS;
use crate::nn::{NetError, Network};
use std::fmt;
use std::time::Duration;

/// Why a spec string does not describe a player. Every kind carries the
/// spec as typed (`spec`) and the part of it that is wrong; the message
/// quotes both.
///
/// ```
/// use yolah_players::{from_spec, SpecError};
///
/// let e = from_spec("mcts:c=x").err().unwrap();
/// assert_eq!(e.to_string(), r#""mcts:c=x": c=x is not a non-negative number"#);
/// let SpecError::BadValue { key, value, .. } = e else { panic!("{e}") };
/// assert_eq!((key.as_str(), value.as_str()), ("c", "x"));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum SpecError {
    /// No player has this name (`chess`).
    UnknownPlayer {
        /// The spec as typed.
        spec: String,
        /// The name before the `:`.
        name: String,
        /// The names that are players, as they are written.
        players: Vec<String>,
    },
    /// The player takes no such option (`random:depth=3`).
    UnknownKey {
        /// The spec as typed.
        spec: String,
        /// The player's name.
        player: String,
        /// The key it does not take.
        key: String,
        /// The keys it takes.
        keys: Vec<String>,
    },
    /// An option is not `key=value` (`mcts:c`).
    NotKeyValue {
        /// The spec as typed.
        spec: String,
        /// The option, between commas.
        option: String,
    },
    /// A key is given twice (`mcts:seed=1,seed=2`).
    DuplicateKey {
        /// The spec as typed.
        spec: String,
        /// The key.
        key: String,
    },
    /// The value is not one the key takes (`mc:playouts=x`).
    BadValue {
        /// The spec as typed.
        spec: String,
        /// The key.
        key: String,
        /// Its value as typed.
        value: String,
        /// What is wrong with it: "is not a whole number", "must be from
        /// 1 to 128"…
        reason: String,
    },
    /// Options that cannot go together, or one that needs another
    /// (`mc:time=5ms,playouts=3`, `mcts:net=FILE` without `eval=nn`).
    Conflict {
        /// The spec as typed.
        spec: String,
        /// The keys involved.
        keys: Vec<String>,
        /// What to give instead.
        reason: String,
    },
    /// A key the player needs is missing (`engine` without `cmd=`).
    MissingKey {
        /// The spec as typed.
        spec: String,
        /// The key.
        key: String,
        /// What it is for.
        reason: String,
    },
    /// The network file of `net=` cannot be used.
    Net {
        /// The spec as typed.
        spec: String,
        /// The file.
        path: String,
        /// Why not.
        error: Box<NetError>,
    },
    /// The weights of `weights=` cannot be loaded.
    Weights {
        /// The spec as typed.
        spec: String,
        /// The name or file given.
        name: String,
        /// Why not.
        error: WeightsError,
    },
}

impl SpecError {
    /// The spec as typed.
    pub fn spec(&self) -> &str {
        match self {
            SpecError::UnknownPlayer { spec, .. }
            | SpecError::UnknownKey { spec, .. }
            | SpecError::NotKeyValue { spec, .. }
            | SpecError::DuplicateKey { spec, .. }
            | SpecError::BadValue { spec, .. }
            | SpecError::Conflict { spec, .. }
            | SpecError::MissingKey { spec, .. }
            | SpecError::Net { spec, .. }
            | SpecError::Weights { spec, .. } => spec,
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: ", self.spec())?;
        match self {
            SpecError::UnknownPlayer { name, players, .. } => {
                write!(
                    f,
                    "unknown player {name:?} (players: {})",
                    players.join(", ")
                )?;
                // `nn,time=1s`: a known name, then options after the wrong mark.
                if let Some((head, tail)) = name.split_once([',', ' ']) {
                    let known = players.iter().any(|p| p.split(':').next() == Some(head));
                    if known && !tail.is_empty() {
                        write!(f, "; options follow a colon, as in \"{head}:{tail}\"")?;
                    }
                }
                Ok(())
            }
            SpecError::UnknownKey {
                player, key, keys, ..
            } => write!(
                f,
                "{player} has no option {key:?} (it takes {})",
                keys.join(", ")
            ),
            SpecError::NotKeyValue { option, .. } if option.is_empty() => {
                f.write_str("an option is empty (two commas in a row, or one at an end)")
            }
            SpecError::NotKeyValue { option, .. } => {
                write!(f, "option {option:?} is not key=value")
            }
            SpecError::DuplicateKey { key, .. } => write!(f, "{key} is given twice"),
            SpecError::BadValue {
                key, value, reason, ..
            } => write!(f, "{key}={value} {reason}"),
            SpecError::Conflict { reason, .. } | SpecError::MissingKey { reason, .. } => {
                f.write_str(reason)
            }
            SpecError::Net { error, .. } => write!(f, "{error}"),
            SpecError::Weights { error, .. } => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for SpecError {}

/// A player that builds itself from a parsed spec.
pub(crate) trait FromSpec: Sized {
    /// The keys the player takes; any other is refused before
    /// [`FromSpec::from_spec`] is called.
    fn keys() -> Vec<&'static str>;

    /// The player of `spec`, whose keys are all among [`FromSpec::keys`].
    fn from_spec(spec: &Spec) -> Result<Self, SpecError>;
}

/// A parsed spec: the name and its `key=value` options, each key once.
#[derive(Debug)]
pub(crate) struct Spec<'a> {
    text: &'a str,
    name: &'a str,
    options: Vec<(&'a str, &'a str)>,
}

impl<'a> Spec<'a> {
    /// Splits `text` into its name and options.
    pub(crate) fn parse(text: &'a str) -> Result<Spec<'a>, SpecError> {
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let mut options = Vec::new();
        // `nn:` is `nn`, but an empty option (`nn:time=1s,,seed=2`, a comma
        // at the end) is refused: it is most often a value lost on the way.
        let parts = match rest {
            "" => None,
            _ => Some(rest.split(',')),
        };
        for part in parts.into_iter().flatten() {
            let (key, value) = part.split_once('=').ok_or_else(|| SpecError::NotKeyValue {
                spec: text.to_string(),
                option: part.to_string(),
            })?;
            if options.iter().any(|&(k, _)| k == key) {
                return Err(SpecError::DuplicateKey {
                    spec: text.to_string(),
                    key: key.to_string(),
                });
            }
            options.push((key, value));
        }
        Ok(Spec {
            text,
            name,
            options,
        })
    }

    /// The whole spec, as given.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// The player's name: what comes before the `:`.
    pub(crate) fn name(&self) -> &'a str {
        self.name
    }

    /// The name is no player's; `players` are.
    pub(crate) fn unknown_player(&self, players: &[&str]) -> SpecError {
        SpecError::UnknownPlayer {
            spec: self.text.to_string(),
            name: self.name.to_string(),
            players: players.iter().map(|p| p.to_string()).collect(),
        }
    }

    /// `key=value` is not what `key` takes: `value` `reason` (such as "is
    /// not a whole number").
    pub(crate) fn bad_value(&self, key: &str, value: impl fmt::Display, reason: &str) -> SpecError {
        SpecError::BadValue {
            spec: self.text.to_string(),
            key: key.to_string(),
            value: value.to_string(),
            reason: reason.to_string(),
        }
    }

    /// The options `keys` cannot go together (or one needs another):
    /// `reason` says what to give instead.
    pub(crate) fn conflict(&self, keys: &[&str], reason: &str) -> SpecError {
        SpecError::Conflict {
            spec: self.text.to_string(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
            reason: reason.to_string(),
        }
    }

    /// The player needs `key`, for what `reason` says.
    pub(crate) fn missing(&self, key: &str, reason: &str) -> SpecError {
        SpecError::MissingKey {
            spec: self.text.to_string(),
            key: key.to_string(),
            reason: reason.to_string(),
        }
    }

    /// Fails on keys outside `allowed`.
    pub(crate) fn allow(&self, allowed: &[&str]) -> Result<(), SpecError> {
        match self.options.iter().find(|(k, _)| !allowed.contains(k)) {
            Some((k, _)) => Err(SpecError::UnknownKey {
                spec: self.text.to_string(),
                player: self.name.to_string(),
                key: k.to_string(),
                keys: allowed.iter().map(|k| k.to_string()).collect(),
            }),
            None => Ok(()),
        }
    }

    /// The value of `key` as typed, if given.
    pub(crate) fn value(&self, key: &str) -> Option<&'a str> {
        self.options
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    /// `seed=` (0 when not given).
    pub(crate) fn seed(&self) -> Result<u64, SpecError> {
        self.number("seed").map(|s| s.unwrap_or(0))
    }

    /// `threads=`, from 1 to [`MAX_THREADS`] (1 when not given).
    pub(crate) fn threads(&self) -> Result<usize, SpecError> {
        match self.number("threads")? {
            None => Ok(1),
            Some(n) if (1..=MAX_THREADS as u64).contains(&n) => Ok(n as usize),
            Some(n) => {
                Err(self.bad_value("threads", n, &format!("must be from 1 to {MAX_THREADS}")))
            }
        }
    }

    /// `key=` as a whole number, if given.
    pub(crate) fn number(&self, key: &str) -> Result<Option<u64>, SpecError> {
        self.value(key)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| self.bad_value(key, v, "is not a whole number"))
            })
            .transpose()
    }

    /// `key=` as a finite number at least 0, if given.
    pub(crate) fn float(&self, key: &str) -> Result<Option<f64>, SpecError> {
        self.value(key)
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| self.bad_value(key, v, "is not a non-negative number"))
            })
            .transpose()
    }

    /// `key=` as a duration ([`parse_duration`]), if given; `example` shows
    /// one in the error.
    pub(crate) fn duration(&self, key: &str, example: &str) -> Result<Option<Duration>, SpecError> {
        self.value(key)
            .map(|t| {
                parse_duration(t)
                    .ok_or_else(|| self.bad_value(key, t, &duration_problem(t, example)))
            })
            .transpose()
    }

    /// The `time=` option, if given.
    pub(crate) fn time(&self) -> Result<Option<Duration>, SpecError> {
        self.duration("time", "100ms or 2s")
    }

    /// The budget from `time=` or the count key; exactly one may be given,
    /// `default` applies when neither is.
    pub(crate) fn budget(&self, count_key: &str, default: Budget) -> Result<Budget, SpecError> {
        match (self.time()?, self.number(count_key)?) {
            (Some(_), Some(_)) => Err(self.conflict(
                &["time", count_key],
                &format!("give time= or {count_key}=, not both"),
            )),
            (Some(t), None) => Ok(Budget::Time(t)),
            (None, Some(0)) => Err(self.bad_value(count_key, 0, "leaves nothing to search")),
            (None, Some(n)) => Ok(Budget::Count(n)),
            (None, None) => Ok(default),
        }
    }

    /// The network of `net=FILE` (of either format), or the shipped one.
    pub(crate) fn net(&self) -> Result<Network, SpecError> {
        let Some(path) = self.value("net") else {
            return Ok(Network::shipped());
        };
        Network::load(path).map_err(|error| SpecError::Net {
            spec: self.text.to_string(),
            path: path.to_string(),
            error: Box::new(error),
        })
    }

    /// The heuristic's weights of `weights=` (a name or a file), or the
    /// default ones.
    pub(crate) fn weights(&self) -> Result<Weights, SpecError> {
        let Some(name) = self.value("weights") else {
            return Ok(Weights::default());
        };
        Weights::named_or_load(name).map_err(|error| SpecError::Weights {
            spec: self.text.to_string(),
            name: name.to_string(),
            error,
        })
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

/// What is wrong with `text`, which [`parse_duration`] refused; `example`
/// shows a good one.
fn duration_problem(text: &str, example: &str) -> String {
    if text.contains(char::is_whitespace) {
        return format!(
            "is not a duration like {example} (options are separated by commas, not spaces)"
        );
    }
    let seconds = ["ms", "us", "s", "m", "h"]
        .iter()
        .find_map(|unit| text.strip_suffix(unit)?.parse::<f64>().ok());
    match seconds {
        Some(x) if x.is_nan() || x <= 0.0 => "must be more than 0".to_string(),
        Some(_) => "is too long (a duration must be under 1,000,000 s)".to_string(),
        None => format!("is not a duration like {example}"),
    }
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
    fn accessors_check_their_values() {
        let spec = Spec::parse("x:seed=4,threads=3,c=1.5,time=2s").unwrap();
        assert_eq!(spec.name(), "x");
        assert_eq!((spec.seed().unwrap(), spec.threads().unwrap()), (4, 3));
        assert_eq!(spec.float("c").unwrap(), Some(1.5));
        assert_eq!(spec.time().unwrap(), Some(Duration::from_secs(2)));
        assert_eq!(spec.value("nope"), None);
        let bad = Spec::parse("x:threads=0,c=-1").unwrap();
        assert!(bad.threads().unwrap_err().to_string().contains("threads=0"));
        assert!(bad.float("c").unwrap_err().to_string().contains("c=-1"));
        assert!(Spec::parse("x:a=1,a=2").is_err());
        assert!(Spec::parse("x:a").is_err());
    }

    #[test]
    fn with_seed_replaces_the_seed() {
        assert_eq!(with_seed("mcts:seed=4,c=1", 9), "mcts:c=1,seed=9");
        assert_eq!(with_seed("random", 2), "random:seed=2");
    }
}
