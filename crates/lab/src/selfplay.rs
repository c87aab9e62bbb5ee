//! Self-play: games of a player against itself, whose positions become
//! training files ([`crate::positions`]), played whole or in shards that a
//! long run can stop and resume, and merged back in game order.

use crate::games::random_opening;
use crate::manifest::{self, checksum_of, fnv1a, write_atomically, FNV_START, VERSION};
use crate::positions::{write, DataError, Sample, MAGIC, RECORD_BYTES};
use crate::shard::{IncompleteShards, Shard};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::ops::Range;
use yolah::rng::{game_seed, splitmix64};
use yolah::{Color, Position};
use yolah_players::{from_spec, with_seed, Score};

/// Plays game `index` of a self-play run with `spec` on both sides (after a
/// random opening of 6 plies) and returns its positions: every position
/// where the side to move had a real choice, with the search score in
/// centipoints ([`Score::centipoints`] converts a Monte Carlo win rate on
/// the scale the network is trained on).
pub fn selfplay_game(spec: &str, seed: u64, index: u64) -> Result<Vec<Sample>, DataError> {
    let game_seed = game_seed(seed, index);
    let mut black = from_spec(&with_seed(spec, game_seed)).map_err(DataError::Spec)?;
    let mut white = from_spec(&with_seed(spec, splitmix64(game_seed))).map_err(DataError::Spec)?;
    let mut start = Position::START;
    for m in random_opening(seed, index, 6) {
        start.play(m);
    }
    let mut seen: Vec<(Position, i16)> = Vec::new();
    let mut pos = start;
    while !pos.is_game_over() {
        let player = match pos.side_to_move() {
            Color::Black => black.as_mut(),
            Color::White => white.as_mut(),
        };
        let a = player.analyse(&pos);
        if pos.legal_move_count() > 1 {
            let centipoints = match a.score {
                Score::Unknown => {
                    return Err(DataError::NoScore {
                        spec: spec.to_string(),
                    })
                }
                score => score.centipoints().unwrap_or(0),
            };
            seen.push((pos, centipoints.clamp(-30_000, 30_000) as i16));
        }
        if let Err(e) = pos.try_play(a.best_move) {
            panic!(
                "{spec} chose an illegal move {} in {pos:?}: {e}",
                a.best_move
            );
        }
    }
    let outcome = pos.outcome();
    Ok(seen
        .into_iter()
        .map(|(pos, score)| Sample {
            pos,
            score,
            result: outcome.sign(pos.side_to_move()),
            exact: false,
        })
        .collect())
}

/// Self-play of `games` games over `threads` workers; samples in game order,
/// whatever the number of threads.
pub fn selfplay(
    spec: &str,
    games: u64,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Sample>, DataError> {
    selfplay_range(spec, 0..games, seed, threads, progress)
}

/// Self-play of the games numbered `range` of a run seeded `seed`: the
/// samples of consecutive ranges, put end to end, are those of [`selfplay`]
/// over the whole run.
pub fn selfplay_range(
    spec: &str,
    range: Range<u64>,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Sample>, DataError> {
    from_spec(spec).map_err(DataError::Spec)?;
    let first = range.start;
    let games = crate::parallel::map_indexed(
        (range.end.saturating_sub(range.start)) as usize,
        threads,
        |i| selfplay_game(spec, seed, first + i as u64),
        progress,
    )?;
    Ok(games.into_iter().flatten().collect())
}

/// What a shard of a self-play run holds: written next to its training
/// file as `FILE.shard.json`, so that [`merge`] can check the shards are
/// one run's, all there, and put them in game order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// The player's spec.
    pub player: String,
    /// Games in the whole run.
    pub games: u64,
    /// The run's seed.
    pub seed: u64,
    /// Which shard.
    pub shard: Shard,
    /// The first game of the shard.
    pub first_game: u64,
    /// One past its last game.
    pub end_game: u64,
    /// Positions in the shard's file.
    pub positions: u64,
    /// The version of yolah that played it: shards of one run must all be
    /// played by the same players.
    pub version: String,
    /// FNV-1a (64 bits) of the file's records, `0x…`.
    pub checksum: String,
}

impl ShardManifest {
    /// Where the manifest of the training file `data` lives.
    pub fn path_for(data: &str) -> String {
        format!("{data}.shard.json")
    }

    /// The manifest of the training file `data`, if it has one and that
    /// file is whole.
    pub fn read(data: &str) -> Result<ShardManifest, DataError> {
        let path = Self::path_for(data);
        let bad = |problem: String| DataError::BadShard {
            path: path.clone(),
            problem,
        };
        let m: ShardManifest = manifest::read(
            &path,
            "shard manifest",
            "; a self-play shard is written by `yolah selfplay --shard K/N`",
        )?;
        if m.shard.range(m.games) != (m.first_game..m.end_game) {
            return Err(bad(format!(
                "games {}..{} are not shard {} of {}",
                m.first_game, m.end_game, m.shard, m.games
            )));
        }
        let (checksum, bytes) = checksum_of(data)?;
        let expected = m.positions.checked_mul(RECORD_BYTES as u64);
        if expected != Some(bytes) {
            return Err(bad(format!(
                "{data} holds {bytes} bytes of records, not the {} positions the manifest counts",
                m.positions
            )));
        }
        if checksum != m.checksum {
            return Err(bad(format!(
                "{data} is not the file the manifest was written for (checksum {checksum}, \
                 not {})",
                m.checksum
            )));
        }
        Ok(m)
    }

    /// Writes the manifest of the training file `data` (after it).
    pub fn write(&self, data: &str) -> Result<(), DataError> {
        let path = Self::path_for(data);
        let text = serde_json::to_string_pretty(self).expect("serialises") + "\n";
        write_atomically(&path, text.as_bytes())
    }
}

/// The manifest of the training file `out` if it is already shard `shard`
/// of this run, whole.
pub fn finished_shard(
    out: &str,
    spec: &str,
    games: u64,
    seed: u64,
    shard: Shard,
) -> Option<ShardManifest> {
    ShardManifest::read(out).ok().filter(|m| {
        m.player == spec
            && m.games == games
            && m.seed == seed
            && m.shard == shard
            && m.version == VERSION
    })
}

/// Writes `samples`, the positions of shard `shard` of a self-play run, to
/// the training file `out` and then its manifest (each through a rename,
/// so a crash leaves no file that looks finished and is not).
pub fn save_shard(
    out: &str,
    spec: &str,
    games: u64,
    seed: u64,
    shard: Shard,
    samples: &[Sample],
) -> Result<ShardManifest, DataError> {
    // A stale manifest must not vouch for the new file while it is written.
    let _ = std::fs::remove_file(ShardManifest::path_for(out));
    let tmp = format!("{out}.tmp");
    write(&tmp, samples)?;
    std::fs::rename(&tmp, out).map_err(|error| DataError::Io {
        action: "write",
        path: out.to_string(),
        error,
    })?;
    let range = shard.range(games);
    let records = samples
        .iter()
        .fold(FNV_START, |h, s| fnv1a(h, &s.to_bytes()));
    let manifest = ShardManifest {
        player: spec.to_string(),
        games,
        seed,
        shard,
        first_game: range.start,
        end_game: range.end,
        positions: samples.len() as u64,
        version: VERSION.to_string(),
        checksum: format!("0x{records:016x}"),
    };
    manifest.write(out)?;
    Ok(manifest)
}

/// Plays shard `shard` of a self-play run into the training file `out`
/// and its manifest. A shard whose file and manifest are already there
/// for the same run is not played again (a killed run of many shards
/// resumes); returns the manifest and whether it was played now.
pub fn selfplay_shard(
    spec: &str,
    games: u64,
    seed: u64,
    shard: Shard,
    threads: usize,
    out: &str,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(ShardManifest, bool), DataError> {
    if let Some(m) = finished_shard(out, spec, games, seed, shard) {
        return Ok((m, false));
    }
    let samples = selfplay_range(spec, shard.range(games), seed, threads, progress)?;
    Ok((save_shard(out, spec, games, seed, shard, &samples)?, true))
}

/// Puts the self-play shards `inputs` (training files with manifests, in
/// any order) together into `out` in game order: the same bytes as one
/// `selfplay` of the whole run. Every shard must be there once, all of one
/// run. Returns the run (as a manifest of shard 1/1).
pub fn merge(inputs: &[String], out: &str) -> Result<ShardManifest, DataError> {
    let mut shards = Vec::new();
    for path in inputs {
        shards.push((ShardManifest::read(path)?, path));
    }
    let first = shards
        .first()
        .map(|(m, _)| m.clone())
        .ok_or(DataError::Shards(IncompleteShards::Empty))?;
    for (m, path) in &shards {
        if m.version != first.version {
            return Err(DataError::OtherVersion {
                path: path.to_string(),
                version: m.version.clone(),
                expected: first.version.clone(),
            });
        }
        let run = |m: &ShardManifest| (m.player.clone(), m.games, m.seed);
        if run(m) != run(&first) {
            return Err(DataError::OtherRun {
                path: path.to_string(),
                run: run(m),
                expected: run(&first),
            });
        }
    }
    let ordered =
        crate::shard::complete(shards.into_iter().map(|(m, p)| (m.shard, (m, p))).collect())
            .map_err(DataError::Shards)?;
    let tmp = format!("{out}.tmp");
    let result = concatenate(&ordered, &tmp).and_then(|positions| {
        std::fs::rename(&tmp, out).map_err(|error| DataError::Io {
            action: "write",
            path: out.to_string(),
            error,
        })?;
        Ok(positions)
    });
    let positions = result.inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(ShardManifest {
        shard: Shard::WHOLE,
        first_game: 0,
        end_game: first.games,
        positions,
        checksum: String::new(),
        ..first
    })
}

/// Writes the training file `tmp`: the records of the `shards`, in order.
fn concatenate(shards: &[(Shard, (ShardManifest, &String))], tmp: &str) -> Result<u64, DataError> {
    let io = |action, path: &str| {
        let path = path.to_string();
        move |error| DataError::Io {
            action,
            path,
            error,
        }
    };
    let mut output = BufWriter::new(File::create(tmp).map_err(io("write", tmp))?);
    output.write_all(MAGIC).map_err(io("write", tmp))?;
    let mut positions = 0u64;
    for (_, (m, path)) in shards {
        let mut input = File::open(path.as_str()).map_err(io("read", path))?;
        let mut magic = [0u8; 8];
        input.read_exact(&mut magic).map_err(io("read", path))?;
        let copied = std::io::copy(&mut input, &mut output).map_err(io("read", path))?;
        if &magic != MAGIC || Some(copied) != m.positions.checked_mul(RECORD_BYTES as u64) {
            return Err(DataError::Changed {
                path: path.to_string(),
            });
        }
        positions += m.positions;
    }
    output
        .into_inner()
        .map_err(|e| io("write", tmp)(e.into_error()))?
        .sync_all()
        .map_err(io("write", tmp))?;
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::positions::{read, BadSample, EXACT_WIN};

    #[test]
    fn selfplay_round_trips_through_the_file_and_is_deterministic() {
        let a = selfplay("alphabeta:depth=1", 4, 3, 2, &|_| {}).unwrap();
        assert_eq!(a, selfplay("alphabeta:depth=1", 4, 3, 1, &|_| {}).unwrap());
        assert!(a.len() > 40);
        assert!(a.iter().all(|s| (-1..=1).contains(&s.result)));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("positions.bin");
        let path = path.to_str().unwrap();
        write(path, &a).unwrap();
        assert_eq!(read(path).unwrap(), a);
        std::fs::write(path, b"YOLAHPOS1234").unwrap();
        assert!(read(path).unwrap_err().to_string().contains("whole number"));
        std::fs::write(path, b"nonsense").unwrap();
        assert!(read(path)
            .unwrap_err()
            .to_string()
            .contains("not a training file"));
        let mut bad = b"YOLAHPOS".to_vec();
        bad.extend([0xff; RECORD_BYTES]);
        std::fs::write(path, bad).unwrap();
        let e = read(path).unwrap_err().to_string();
        assert!(e.contains("record 1: bad position"), "{e}");
        // The flags byte: exact samples round trip, other flags and exact
        // scores that are no result are refused.
        let exact = Sample {
            score: -EXACT_WIN,
            exact: true,
            ..a[3]
        };
        assert_eq!(Sample::from_bytes(&exact.to_bytes()), Ok(exact));
        let mut flags = a[3].to_bytes();
        flags[31] = 2;
        assert_eq!(Sample::from_bytes(&flags), Err(BadSample::Flags(2)));
        let odd = Sample { score: 5, ..exact };
        let e = Sample::from_bytes(&odd.to_bytes()).unwrap_err();
        assert!(e.to_string().contains("exact score of 5"), "{e}");
        assert!(read("/dev/zero")
            .unwrap_err()
            .to_string()
            .contains("not a training file"));
    }

    #[test]
    fn monte_carlo_win_rates_become_centipoints_and_random_is_refused() {
        // mcts reports win rates; the file must hold them as centipoints on
        // the training scale, not as 0 or 1.
        let samples = selfplay("mcts:iterations=300", 2, 1, 1, &|_| {}).unwrap();
        let spread = samples.iter().filter(|s| s.score.abs() > 1).count();
        assert!(spread * 2 > samples.len(), "most scores are real values");
        for s in &samples {
            let p = yolah_players::score::expected_result(f64::from(s.score));
            assert!((0.0..=1.0).contains(&p));
        }
        let e = selfplay("random", 1, 1, 1, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("gives no score to learn from"), "{e}");
    }
}
