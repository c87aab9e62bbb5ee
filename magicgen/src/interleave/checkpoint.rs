//! A packing's checkpoint (`magicgen --pack-checkpoint FILE`): where each
//! chain stood when it last saved, so that a packing of an hour or more can
//! be stopped and go on later to the same table.
//!
//! Plain text, rewritten whole (never appended) as the chains save:
//!
//! ```text
//! # magicgen packing checkpoint
//! key 5d1c0f2a9e3b7c41
//! chain 0 step 53248 len 88184 rng 1935360
//! layout 0@0 1@371 - 0@1022 …
//! best 0@0 0@371 0@804 …
//! ```
//!
//! The key hashes everything the chains' course depends on (the seed, the
//! pool's blocks, the run length, the turns, the penalty, the steps, the number of chains
//! and the packer's version, which a change to the packer must raise), so a
//! checkpoint is only taken up by the search that wrote it. A layout gives each square
//! as `shape@run`, or `-` when it is out.

use super::chain::{ChainState, Layout};
use super::{Packing, CHAINS};

/// The first line of a checkpoint file.
const HEADER: &str = "# magicgen packing checkpoint";

/// The packer's version, part of the key: raise it with any change to how a
/// chain steps (its constants, its ruin and recreate), so that a checkpoint
/// of the old packer is refused rather than taken up to another table.
const PACKER_VERSION: u64 = 1;

/// Every chain's last saved state, for the search that `key` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub(super) key: u64,
    pub(super) chains: Vec<Option<ChainState>>,
}

impl Checkpoint {
    /// An empty checkpoint (no chain has saved) of the packing of `pool`
    /// with `seed` as `packing` says.
    pub fn new(seed: u64, pool: &[Vec<(u64, u32)>], packing: &Packing) -> Checkpoint {
        Checkpoint {
            key: key(seed, pool, packing),
            chains: vec![None; CHAINS as usize],
        }
    }

    /// Steps the chains have done, over all of them.
    pub fn steps(&self) -> u64 {
        self.chains.iter().flatten().map(|c| c.step).sum()
    }

    /// The checkpoint as text.
    pub fn to_text(&self) -> String {
        let layout = |l: &Layout| {
            l.iter()
                .map(|p| p.map_or("-".to_string(), |(s, at)| format!("{s}@{at}")))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut text = format!("{HEADER}\nkey {:016x}\n", self.key);
        for (c, state) in self.chains.iter().enumerate() {
            let Some(state) = state else { continue };
            text += &format!(
                "chain {c} step {} len {} rng {}\nlayout {}\nbest {}\n",
                state.step,
                state.len,
                state.rng,
                layout(&state.layout),
                layout(&state.best)
            );
        }
        text
    }

    /// Reads a checkpoint of the packing of `pool` with `seed` as `packing`
    /// says. Refuses one written by another search, and says which line of
    /// a damaged one is wrong. (Whether its layouts fit the pool's shapes is
    /// checked by [`super::check_checkpoint`], and again when the search
    /// takes it up.)
    pub fn parse(
        text: &str,
        seed: u64,
        pool: &[Vec<(u64, u32)>],
        packing: &Packing,
    ) -> Result<Checkpoint, String> {
        let mut checkpoint = Checkpoint::new(seed, pool, packing);
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let mut next = |what: &str| {
            lines
                .next()
                .ok_or_else(|| format!("it ends where {what} should be"))
        };
        let (_, header) = next("its header")?;
        if header != HEADER {
            return Err(format!(
                "line 1 is not {HEADER:?}: not a packing checkpoint"
            ));
        }
        let (n, key) = next("the key")?;
        let key = key
            .strip_prefix("key ")
            .and_then(|k| u64::from_str_radix(k, 16).ok())
            .ok_or_else(|| format!("line {n} is not \"key\" and 16 hex digits"))?;
        if key != checkpoint.key {
            return Err(format!(
                "it was written by another packing (key {key:016x}, this one's is {:016x}: \
                 another seed, pool, --run-slots, --turns, --penalty or --effort, or another magicgen)",
                checkpoint.key
            ));
        }
        while let Ok((n, head)) = next("") {
            let bad = || format!("line {n} is not \"chain C step S len L rng R\"");
            let words: Vec<&str> = head.split(' ').collect();
            let ["chain", c, "step", step, "len", len, "rng", rng] = words[..] else {
                return Err(bad());
            };
            let c: usize = c.parse().map_err(|_| bad())?;
            if c >= checkpoint.chains.len() || checkpoint.chains[c].is_some() {
                return Err(format!(
                    "line {n}: chain {c} is not a chain, or is given twice"
                ));
            }
            let mut layout = |name: &str| {
                let (n, line) = next(name)?;
                let items = line
                    .strip_prefix(name)
                    .and_then(|l| l.strip_prefix(' '))
                    .ok_or_else(|| format!("line {n} does not start with {name:?}"))?;
                parse_layout(items)
                    .ok_or_else(|| format!("line {n}: a square is not \"shape@run\" or \"-\""))
            };
            let state = ChainState {
                step: step.parse().map_err(|_| bad())?,
                len: len.parse().map_err(|_| bad())?,
                rng: rng.parse().map_err(|_| bad())?,
                layout: layout("layout")?,
                best: layout("best")?,
            };
            if state.step > packing.steps {
                return Err(format!(
                    "line {n}: chain {c} is at step {}, past this packing's {}",
                    state.step, packing.steps
                ));
            }
            checkpoint.chains[c] = Some(state);
        }
        Ok(checkpoint)
    }
}

fn parse_layout(items: &str) -> Option<Layout> {
    items
        .split(' ')
        .map(|item| match item {
            "-" => Some(None),
            _ => {
                let (s, at) = item.split_once('@')?;
                Some(Some((s.parse().ok()?, at.parse().ok()?)))
            }
        })
        .collect()
}

/// FNV-1a over what a packing's course depends on.
fn key(seed: u64, pool: &[Vec<(u64, u32)>], packing: &Packing) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(PACKER_VERSION);
    eat(CHAINS);
    eat(seed);
    eat(packing.run.into());
    eat(packing.turns.into());
    eat(packing.steps);
    // Left out at its default, so that earlier checkpoints keep their key.
    if packing.penalty != super::DEFAULT_PENALTY {
        eat(packing.penalty.into());
    }
    for blocks in pool {
        eat(blocks.len() as u64);
        for &(magic, bits) in blocks {
            eat(magic);
            eat(bits.into());
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::super::tests::small_pool;
    use super::*;

    fn packing(steps: u64) -> Packing {
        Packing {
            run: 8,
            turns: 1,
            penalty: super::super::DEFAULT_PENALTY,
            steps,
            threads: 1,
        }
    }

    #[test]
    fn a_checkpoint_reads_back_and_only_for_its_own_search() {
        let pool = small_pool();
        let mut cp = Checkpoint::new(5, &pool, &packing(100));
        cp.chains[1] = Some(ChainState {
            step: 64,
            len: 900,
            rng: 12345,
            layout: vec![Some((0, 3)), None, Some((2, 17))],
            best: vec![Some((1, 0)); 3],
        });
        let text = cp.to_text();
        assert!(text.contains("layout 0@3 - 2@17\n"), "{text}");
        assert_eq!(
            Checkpoint::parse(&text, 5, &pool, &packing(100)),
            Ok(cp.clone())
        );
        assert_eq!(cp.steps(), 64);
        // Another seed, another number of steps, another pool: refused.
        for (seed, steps, pool) in [
            (6, 100, &pool),
            (5, 101, &pool),
            (5, 100, &pool[1..].to_vec()),
        ] {
            let e = Checkpoint::parse(&text, seed, pool, &packing(steps)).unwrap_err();
            assert!(e.contains("another packing"), "{e}");
        }
        // Another penalty, too.
        let dearer = Packing {
            penalty: 3,
            ..packing(100)
        };
        let e = Checkpoint::parse(&text, 5, &pool, &dearer).unwrap_err();
        assert!(e.contains("another packing"), "{e}");
        // Damage is named by line.
        let damaged = |from: &str, to: &str| {
            Checkpoint::parse(&text.replacen(from, to, 1), 5, &pool, &packing(100)).unwrap_err()
        };
        assert!(damaged("# magicgen", "# other").contains("not a packing checkpoint"));
        assert!(damaged("step 64", "step x").contains("line 3 is not"));
        assert!(damaged("step 64", "step 101").contains("past this packing's 100"));
        assert!(damaged("chain 1", "chain 7").contains("chain 7 is not a chain"));
        assert!(damaged("2@17", "2#17").contains("line 4: a square"));
        assert!(damaged("best ", "bust ").contains("line 5 does not start with \"best\""));
        let cut = &text[..text.find("best").unwrap()];
        let e = Checkpoint::parse(cut, 5, &pool, &packing(100)).unwrap_err();
        assert!(e.contains("ends where best should be"), "{e}");
        assert!(Checkpoint::parse("", 5, &pool, &packing(100)).is_err());
    }
}
