//! Labelling training positions again, better than the search that played
//! them: positions the exact solver settles within a small budget get their
//! proven result (or, with [`LabelConfig::margin`], their proven final
//! margin), the others (optionally) a deeper search's score.
//!
//! A labelled file is a training file like any other (positions in the
//! order of its source), written with a manifest `OUT.label.json` that says
//! what it was made from and how; labelling a file whose output and
//! manifest are already there for the same source and settings does
//! nothing, so that a long run over many shards resumes where it stopped.
//!
//! Positions are labelled in blocks of [`BLOCK`]: each block starts with a
//! fresh solver and player (their tables carry over from one position to
//! the next within the block only), so the labels do not depend on the
//! number of threads.

use crate::manifest::{self, checksum_of, write_atomically, VERSION};
use crate::positions::{self, DataError, Sample, CENTIPOINTS_PER_POINT, EXACT_WIN};
use serde::{Deserialize, Serialize};
use yolah::rng::game_seed;
use yolah_players::solve::{Limits, Solver};
use yolah_players::{from_spec, with_seed, Score, Stop};

/// Positions per block (see the module's documentation).
pub const BLOCK: usize = 256;

/// How to label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelConfig {
    /// Positions with at most this many free squares go to the solver.
    pub exact_free: u32,
    /// The solver's node budget per position.
    pub solve_nodes: u64,
    /// The player whose score labels the positions the solver does not
    /// settle, such as `nn:depth=7`; `None` keeps their score.
    pub player: Option<String>,
    /// The players' seed (each block's player is seeded from it).
    pub seed: u64,
    /// Whether the solver proves the final margin (a full-window solve,
    /// dearer than the result's null window) and the label is that margin,
    /// [`CENTIPOINTS_PER_POINT`] a point, rather than a win, draw or loss.
    #[serde(default)]
    pub margin: bool,
}

/// What a labelled file holds: written next to it as `OUT.label.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelManifest {
    /// The file labelled.
    pub source: String,
    /// The FNV-1a checksum of its records.
    pub source_checksum: String,
    /// How.
    pub config: LabelConfig,
    /// Positions in all.
    pub positions: u64,
    /// Positions given their proven result.
    pub exact: u64,
    /// Positions given the player's score.
    pub searched: u64,
    /// Seconds spent labelling.
    pub seconds: f64,
    /// The version of yolah that labelled it.
    pub version: String,
    /// FNV-1a of the labelled file's records.
    pub checksum: String,
}

impl LabelManifest {
    /// Where the manifest of the labelled file `out` lives.
    pub fn path_for(out: &str) -> String {
        format!("{out}.label.json")
    }

    /// The manifest of `out`, if it has one and `out` is whole.
    pub fn read(out: &str) -> Result<LabelManifest, DataError> {
        let path = Self::path_for(out);
        let bad = |problem: String| DataError::BadShard {
            path: path.clone(),
            problem,
        };
        let m: LabelManifest = manifest::read(&path, "label manifest", "")?;
        let (checksum, _) = checksum_of(out)?;
        if checksum != m.checksum {
            return Err(bad(format!(
                "{out} is not the file the manifest was written for"
            )));
        }
        Ok(m)
    }
}

/// The label of one position: the solver's proven result (or margin) if it
/// finds one within the budget (positions with few free squares only), else
/// the player's score, else the sample as it was. Returns the sample and
/// whether it was solved or searched; a player that gives no score (such
/// as `random`) is refused, as self-play refuses it.
fn label_one(
    sample: &Sample,
    config: &LabelConfig,
    solver: &mut Solver,
    player: Option<&mut Box<dyn yolah_players::Player>>,
) -> Result<(Sample, Outcome), DataError> {
    let pos = &sample.pos;
    if pos.free().count() <= config.exact_free {
        let limits = Limits {
            nodes: Some(config.solve_nodes),
            time: None,
        };
        let proven = if config.margin {
            solver
                .margin_within(pos, limits, &Stop::new())
                .map(|(margin, _)| margin as i16 * CENTIPOINTS_PER_POINT)
        } else {
            solver
                .result_within(pos, limits, &Stop::new())
                .map(|(sign, _)| EXACT_WIN * sign as i16)
        };
        if let Some(score) = proven {
            let exact = Sample {
                score,
                exact: true,
                ..*sample
            };
            return Ok((exact, Outcome::Solved));
        }
    }
    match player {
        Some(player) => {
            let score = match player.analyse(pos).score {
                Score::Unknown => {
                    return Err(DataError::NoScore {
                        spec: config.player.clone().unwrap_or_default(),
                    })
                }
                s => s.centipoints().unwrap_or(0).clamp(-30_000, 30_000) as i16,
            };
            let searched = Sample {
                score,
                exact: false,
                ..*sample
            };
            Ok((searched, Outcome::Searched))
        }
        None => Ok((*sample, Outcome::Kept)),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Solved,
    Searched,
    Kept,
}

/// Labels `samples` as `config` says, on `threads` threads; `progress`
/// gets the number of blocks done. Returns the labelled samples, in order,
/// and how many were solved and searched.
pub fn label(
    samples: &[Sample],
    config: &LabelConfig,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Vec<Sample>, u64, u64), DataError> {
    if let Some(spec) = &config.player {
        from_spec(spec).map_err(DataError::Spec)?;
    }
    let blocks = samples.chunks(BLOCK).collect::<Vec<_>>();
    let labelled = crate::parallel::map_indexed(
        blocks.len(),
        threads,
        |b| {
            let mut solver = Solver::new();
            let mut player = match &config.player {
                Some(spec) => Some(
                    from_spec(&with_seed(spec, game_seed(config.seed, b as u64)))
                        .map_err(DataError::Spec)?,
                ),
                None => None,
            };
            blocks[b]
                .iter()
                .map(|s| label_one(s, config, &mut solver, player.as_mut()))
                .collect::<Result<Vec<_>, DataError>>()
        },
        progress,
    )?;
    let all: Vec<(Sample, Outcome)> = labelled.into_iter().flatten().collect();
    let count = |o: Outcome| all.iter().filter(|(_, x)| *x == o).count() as u64;
    let (solved, searched) = (count(Outcome::Solved), count(Outcome::Searched));
    Ok((all.into_iter().map(|(s, _)| s).collect(), solved, searched))
}

/// Labels the training file `source` into `out` (and its manifest); does
/// nothing when `out` is already `source` labelled the same way. Returns
/// the manifest and whether the labelling ran now.
pub fn label_file(
    source: &str,
    config: &LabelConfig,
    threads: usize,
    out: &str,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(LabelManifest, bool), DataError> {
    let (source_checksum, _) = checksum_of(source)?;
    if let Ok(m) = LabelManifest::read(out) {
        if m.source_checksum == source_checksum && &m.config == config && m.version == VERSION {
            return Ok((m, false));
        }
    }
    let _ = std::fs::remove_file(LabelManifest::path_for(out));
    let samples = positions::read(source)?;
    let started = std::time::Instant::now();
    let (labelled, exact, searched) = label(&samples, config, threads, progress)?;
    let seconds = started.elapsed().as_secs_f64();
    let tmp = format!("{out}.tmp");
    positions::write(&tmp, &labelled)?;
    std::fs::rename(&tmp, out).map_err(|error| DataError::Io {
        action: "write",
        path: out.to_string(),
        error,
    })?;
    let (checksum, _) = checksum_of(out)?;
    let manifest = LabelManifest {
        source: source.to_string(),
        source_checksum,
        config: config.clone(),
        positions: labelled.len() as u64,
        exact,
        searched,
        seconds,
        version: VERSION.to_string(),
        checksum,
    };
    let text = serde_json::to_string_pretty(&manifest).expect("serialises") + "\n";
    write_atomically(&LabelManifest::path_for(out), text.as_bytes())?;
    Ok((manifest, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::{selfplay, Run};
    use yolah_players::solve::margin_plain;

    #[test]
    fn endgames_get_their_proven_result_and_the_rest_a_search() {
        let samples = selfplay(&Run::new("alphabeta:depth=1", 6, 5), 1, &|_| {}).unwrap();
        let config = LabelConfig {
            exact_free: 12,
            solve_nodes: 100_000,
            player: Some("alphabeta:depth=2".into()),
            seed: 1,
            margin: false,
        };
        let (labelled, exact, searched) = label(&samples, &config, 2, &|_| {}).unwrap();
        assert_eq!(labelled.len(), samples.len());
        assert_eq!(exact + searched, samples.len() as u64);
        assert!(
            exact > 10 && searched > 10,
            "{exact} solved, {searched} searched"
        );
        for (before, after) in samples.iter().zip(&labelled) {
            assert_eq!((before.pos, before.result), (after.pos, after.result));
            if after.exact {
                let (margin, _) = margin_plain(&after.pos, u64::MAX).unwrap();
                assert_eq!(
                    i32::from(after.score),
                    i32::from(EXACT_WIN) * margin.signum()
                );
            }
        }
        let (again, ..) = label(&samples, &config, 1, &|_| {}).unwrap();
        assert_eq!(again, labelled, "the same labels on any number of threads");
    }

    #[test]
    fn a_player_without_scores_is_refused() {
        let samples = selfplay(&Run::new("alphabeta:depth=1", 2, 5), 1, &|_| {}).unwrap();
        let config = LabelConfig {
            exact_free: 0,
            solve_nodes: 1,
            player: Some("random".into()),
            seed: 1,
            margin: false,
        };
        let e = label(&samples, &config, 1, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("\"random\" gives no score to learn from"),
            "{e}"
        );
    }

    #[test]
    fn with_margins_the_proven_ones_are_the_final_margins() {
        let samples = selfplay(&Run::new("alphabeta:depth=1", 4, 7), 1, &|_| {}).unwrap();
        let config = LabelConfig {
            exact_free: 12,
            solve_nodes: 1_000_000,
            player: None,
            seed: 0,
            margin: true,
        };
        let (labelled, exact, searched) = label(&samples, &config, 2, &|_| {}).unwrap();
        assert!(exact > 10 && searched == 0, "{exact} solved");
        let mut wide = 0;
        for (before, after) in samples.iter().zip(&labelled) {
            if after.exact {
                let (margin, _) = margin_plain(&after.pos, u64::MAX).unwrap();
                assert_eq!(after.score, margin as i16 * CENTIPOINTS_PER_POINT);
                wide += usize::from(margin.abs() > 1);
            } else {
                assert_eq!(after, before, "kept as it was");
            }
        }
        assert!(wide > 0, "some margins are more than a point");
        // Labelled files hold them.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.bin").to_str().unwrap().to_string();
        positions::write(&path, &labelled).unwrap();
        assert_eq!(positions::read(&path).unwrap(), labelled);
    }

    #[test]
    fn a_labelled_file_is_not_labelled_twice() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("in.bin").to_str().unwrap().to_string();
        let out = dir.path().join("out.bin").to_str().unwrap().to_string();
        positions::write(
            &source,
            &selfplay(&Run::new("alphabeta:depth=1", 2, 9), 1, &|_| {}).unwrap(),
        )
        .unwrap();
        let config = LabelConfig {
            exact_free: 10,
            solve_nodes: 10_000,
            player: None,
            seed: 0,
            margin: false,
        };
        let (m, ran) = label_file(&source, &config, 1, &out, &|_| {}).unwrap();
        assert!(ran && m.exact > 0 && m.searched == 0);
        let (again, ran) = label_file(&source, &config, 1, &out, &|_| {}).unwrap();
        assert!(!ran);
        assert_eq!(again, m);
        let other = LabelConfig {
            exact_free: 11,
            ..config
        };
        assert!(label_file(&source, &other, 1, &out, &|_| {}).unwrap().1);
        let solved = positions::read(&out)
            .unwrap()
            .iter()
            .filter(|s| s.exact)
            .count();
        assert!(solved as u64 > m.exact, "one more free square, more solved");
    }
}
