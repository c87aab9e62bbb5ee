//! Splitting a run's games into shards that separate processes or machines
//! play, and putting the pieces back together.
//!
//! Every game of a run (a tournament, a self-play data set, a count of
//! random games) depends only on the run's settings and the game's index,
//! so a run can be cut into `N` shards by index, each played anywhere, and
//! the shards merged give exactly what one machine playing the whole run
//! gives. Shard `K/N` (1-based, as Slurm array and Kubernetes indexed-job
//! numbering make easy) holds the contiguous block of indices
//! `total·(K−1)/N .. total·K/N`.
//!
//! ```
//! use yolah_lab::shard::Shard;
//!
//! let shard: Shard = "2/3".parse().unwrap();
//! assert_eq!(shard.range(10), 3..6);
//! let all: Vec<u64> = Shard::all(3).flat_map(|s| s.range(10)).collect();
//! assert_eq!(all, (0..10).collect::<Vec<_>>());
//! assert!("0/3".parse::<Shard>().is_err());
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// One of `count` parts of a run: `K/N` in text, `index` = K − 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// The most shards a run may be cut into.
pub const MAX_SHARDS: u64 = 1 << 20;

impl Shard {
    /// The whole run as a single shard, `1/1`.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `number` of `count`, numbered from 1; `None` unless
    /// `1 <= number <= count <= MAX_SHARDS`.
    pub const fn new(number: u64, count: u64) -> Option<Shard> {
        if number >= 1 && number <= count && count <= MAX_SHARDS {
            Some(Shard {
                index: number - 1,
                count,
            })
        } else {
            None
        }
    }

    /// The shard's number, from 1.
    pub const fn number(self) -> u64 {
        self.index + 1
    }

    /// How many shards the run is cut into.
    pub const fn count(self) -> u64 {
        self.count
    }

    /// The indices of this shard's games among `total`.
    pub const fn range(self, total: u64) -> Range<u64> {
        // u128: total · count does not overflow for any u64 total.
        let (total, count) = (total as u128, self.count as u128);
        let start = total * self.index as u128 / count;
        let end = total * (self.index as u128 + 1) / count;
        start as u64..end as u64
    }

    /// How many of `total` games this shard plays: the length of
    /// [`Shard::range`], by subtraction rather than by counting.
    pub const fn games(self, total: u64) -> u64 {
        let range = self.range(total);
        range.end - range.start
    }

    /// The `count` shards of a run, in order.
    pub fn all(count: u64) -> impl Iterator<Item = Shard> {
        (1..=count).filter_map(move |k| Shard::new(k, count))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.number(), self.count)
    }
}

/// Why a text is not a shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseShardError(String);

impl fmt::Display for ParseShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a shard: write K/N with 1 <= K <= N <= {MAX_SHARDS}, such as 2/8",
            self.0
        )
    }
}

impl std::error::Error for ParseShardError {}

impl FromStr for Shard {
    type Err = ParseShardError;

    fn from_str(text: &str) -> Result<Shard, ParseShardError> {
        let bad = || ParseShardError(text.to_string());
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let number = |t: &str| t.trim().parse::<u64>().map_err(|_| bad());
        Shard::new(number(k)?, number(n)?).ok_or_else(bad)
    }
}

impl Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shard, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Why shards do not make one whole run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IncompleteShards {
    /// There are none.
    Empty,
    /// Shards of two splits, such as 1/2 and 2/3.
    MixedSplits {
        /// A shard of the one split.
        first: Shard,
        /// A shard of another.
        other: Shard,
    },
    /// A shard comes twice.
    Twice(Shard),
    /// These shards of the split are missing.
    Missing(Vec<Shard>),
}

impl fmt::Display for IncompleteShards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IncompleteShards::Empty => f.write_str("no shards to merge"),
            IncompleteShards::MixedSplits { first, other } => {
                write!(f, "shards of different splits: {first} and {other}")
            }
            IncompleteShards::Twice(shard) => write!(f, "shard {shard} is there twice"),
            IncompleteShards::Missing(missing) => {
                let names: Vec<String> = missing.iter().map(Shard::to_string).collect();
                write!(f, "missing shard(s) {}", names.join(", "))
            }
        }
    }
}

impl std::error::Error for IncompleteShards {}

/// Checks that `shards` (in any order) are each of the `count` shards of
/// one run exactly once, and returns them in order with their items.
pub fn complete<T>(mut shards: Vec<(Shard, T)>) -> Result<Vec<(Shard, T)>, IncompleteShards> {
    shards.sort_by_key(|(s, _)| *s);
    let Some(first) = shards.first().map(|(s, _)| *s) else {
        return Err(IncompleteShards::Empty);
    };
    if let Some(&(other, _)) = shards.iter().find(|(s, _)| s.count != first.count) {
        return Err(IncompleteShards::MixedSplits { first, other });
    }
    if let Some(w) = shards.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(IncompleteShards::Twice(w[0].0));
    }
    let missing: Vec<Shard> = Shard::all(first.count)
        .filter(|s| shards.iter().all(|(t, _)| t != s))
        .collect();
    if !missing.is_empty() {
        return Err(IncompleteShards::Missing(missing));
    }
    Ok(shards)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_index_once_whatever_the_count() {
        for total in [0u64, 1, 2, 7, 100, 1001] {
            for count in 1..=12 {
                let mut next = 0;
                for s in Shard::all(count) {
                    let r = s.range(total);
                    assert_eq!(r.start, next, "{s} of {total}");
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
        let huge = Shard::new(3, 3).unwrap().range(u64::MAX);
        assert_eq!(huge.end, u64::MAX);
    }

    #[test]
    fn text_round_trips_and_bad_text_says_why() {
        for text in ["1/1", "3/8", "1048576/1048576"] {
            assert_eq!(text.parse::<Shard>().unwrap().to_string(), text);
        }
        for bad in ["", "1", "0/4", "5/4", "a/b", "1/0", "1/2/3", "2/2000000"] {
            let e = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(e.contains("K/N"), "{bad}: {e}");
        }
        let json = serde_json::to_string(&Shard::new(2, 5).unwrap()).unwrap();
        assert_eq!(json, "\"2/5\"");
        assert_eq!(
            serde_json::from_str::<Shard>(&json).unwrap(),
            Shard::new(2, 5).unwrap()
        );
    }

    #[test]
    fn complete_wants_each_shard_once() {
        let s = |k, n| Shard::new(k, n).unwrap();
        let ok = complete(vec![(s(2, 2), 'b'), (s(1, 2), 'a')]).unwrap();
        assert_eq!(ok, vec![(s(1, 2), 'a'), (s(2, 2), 'b')]);
        let e = complete(vec![(s(1, 3), ()), (s(3, 3), ())]).unwrap_err();
        assert_eq!(e, IncompleteShards::Missing(vec![s(2, 3)]));
        assert_eq!(e.to_string(), "missing shard(s) 2/3");
        let e = complete(vec![(s(1, 2), ()), (s(1, 2), ()), (s(2, 2), ())]).unwrap_err();
        assert_eq!(e.to_string(), "shard 1/2 is there twice");
        let e = complete(vec![(s(1, 2), ()), (s(2, 3), ())]).unwrap_err();
        assert_eq!(e.to_string(), "shards of different splits: 1/2 and 2/3");
        assert_eq!(complete::<()>(vec![]), Err(IncompleteShards::Empty));
    }
}
