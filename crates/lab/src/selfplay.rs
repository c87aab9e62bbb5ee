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
use yolah::{Color, Move, Position};
use yolah_players::{from_spec, with_seed, Score};

/// A self-play run: what every shard of it plays, so that shards of one
/// run, played apart, make the same games as the run played whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The player's spec, the same on both sides.
    pub player: String,
    /// Games in the whole run.
    pub games: u64,
    /// The run's seed: of the openings, the players and the random moves.
    pub seed: u64,
    /// How often a move strays (see [`STRAY_ABOVE_FREE`]): the
    /// probability, from 0 to 1, that a move is a random legal one instead
    /// of the player's choice.
    pub explore: f64,
}

/// A move strays only while more than this many squares are free (56 are
/// at the start): the random moves change which positions the games reach,
/// while the endings, where one move can decide the result every position
/// of the game is labelled with, are played by the player.
pub const STRAY_ABOVE_FREE: u32 = 26;

impl Run {
    /// A run of `games` games of `player` seeded `seed`, with no random
    /// moves.
    pub fn new(player: &str, games: u64, seed: u64) -> Run {
        Run {
            player: player.to_string(),
            games,
            seed,
            explore: 0.0,
        }
    }

    /// The same run, where a move strays with probability `explore`.
    pub fn exploring(self, explore: f64) -> Run {
        Run { explore, ..self }
    }

    /// The random move played instead of the player's in `pos`, ply
    /// `pos.ply()` of the game seeded `game_seed`, if this one strays: a
    /// draw of its own for every ply, so that it depends on nothing but
    /// the game and the ply.
    fn stray(&self, game_seed: u64, pos: &Position) -> Option<Move> {
        if self.explore <= 0.0 || pos.free().count() <= STRAY_ABOVE_FREE {
            return None;
        }
        let draw = splitmix64(game_seed ^ u64::from(pos.ply()).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let uniform = (draw >> 11) as f64 / (1u64 << 53) as f64;
        if uniform >= self.explore {
            return None;
        }
        let moves = pos.legal_moves();
        Some(moves[(splitmix64(draw) % moves.len() as u64) as usize])
    }
}

impl std::fmt::Display for Run {
    /// `7 games of alphabeta:depth=1 seeded 2`, and `, straying with
    /// probability 0.1` when moves stray.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} games of {} seeded {}",
            self.games, self.player, self.seed
        )?;
        if self.explore > 0.0 {
            write!(f, ", straying with probability {}", self.explore)?;
        }
        Ok(())
    }
}

/// Plays game `index` of the self-play run `run` (after a random opening
/// of 6 plies) and returns its positions: every position where the side
/// to move had a real choice, with the search score in centipoints
/// ([`Score::centipoints`] converts a Monte Carlo win rate on the scale
/// the network is trained on). A position whose move strays is kept with
/// the player's score; the game goes on from the random move.
pub fn selfplay_game(run: &Run, index: u64) -> Result<Vec<Sample>, DataError> {
    let (spec, seed) = (run.player.as_str(), run.seed);
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
        let chosen = run.stray(game_seed, &pos).unwrap_or(a.best_move);
        if let Err(e) = pos.try_play(chosen) {
            panic!("{spec} chose an illegal move {chosen} in {pos:?}: {e}");
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

/// Self-play of the whole run `run` over `threads` workers; samples in game
/// order, whatever the number of threads.
pub fn selfplay(
    run: &Run,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Sample>, DataError> {
    selfplay_range(run, 0..run.games, threads, progress)
}

/// Self-play of the games numbered `range` of the run `run`: the samples
/// of consecutive ranges, put end to end, are those of [`selfplay`] over
/// the whole run.
pub fn selfplay_range(
    run: &Run,
    range: Range<u64>,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Sample>, DataError> {
    from_spec(&run.player).map_err(DataError::Spec)?;
    let first = range.start;
    let games = crate::parallel::map_indexed(
        (range.end.saturating_sub(range.start)) as usize,
        threads,
        |i| selfplay_game(run, first + i as u64),
        progress,
    )?;
    Ok(games.into_iter().flatten().collect())
}

/// What a shard of a self-play run holds: written next to its training
/// file as `FILE.shard.json`, so that [`merge`] can check the shards are
/// one run's, all there, and put them in game order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// The player's spec.
    pub player: String,
    /// Games in the whole run.
    pub games: u64,
    /// The run's seed.
    pub seed: u64,
    /// How often a move strays ([`Run::explore`]); absent when never, as
    /// in the manifests written before it could.
    #[serde(default, skip_serializing_if = "never")]
    pub explore: f64,
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

/// Whether a run's moves never stray: then its manifest says nothing of it.
fn never(explore: &f64) -> bool {
    *explore == 0.0
}

impl ShardManifest {
    /// The run the shard is part of.
    pub fn run(&self) -> Run {
        Run {
            player: self.player.clone(),
            games: self.games,
            seed: self.seed,
            explore: self.explore,
        }
    }

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
/// of the run `run`, whole.
pub fn finished_shard(out: &str, run: &Run, shard: Shard) -> Option<ShardManifest> {
    ShardManifest::read(out)
        .ok()
        .filter(|m| m.run() == *run && m.shard == shard && m.version == VERSION)
}

/// Writes `samples`, the positions of shard `shard` of the self-play run
/// `run`, to the training file `out` and then its manifest (each through a
/// rename, so a crash leaves no file that looks finished and is not).
pub fn save_shard(
    out: &str,
    run: &Run,
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
    let range = shard.range(run.games);
    let records = samples
        .iter()
        .fold(FNV_START, |h, s| fnv1a(h, &s.to_bytes()));
    let manifest = ShardManifest {
        player: run.player.clone(),
        games: run.games,
        seed: run.seed,
        explore: run.explore,
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

/// Plays shard `shard` of the self-play run `run` into the training file
/// `out` and its manifest. A shard whose file and manifest are already
/// there for the same run is not played again (a killed run of many shards
/// resumes); returns the manifest and whether it was played now.
pub fn selfplay_shard(
    run: &Run,
    shard: Shard,
    threads: usize,
    out: &str,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(ShardManifest, bool), DataError> {
    if let Some(m) = finished_shard(out, run, shard) {
        return Ok((m, false));
    }
    let samples = selfplay_range(run, shard.range(run.games), threads, progress)?;
    Ok((save_shard(out, run, shard, &samples)?, true))
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
        if m.run() != first.run() {
            return Err(DataError::OtherRun {
                path: path.to_string(),
                run: m.run().to_string(),
                expected: first.run().to_string(),
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
    use crate::positions::{read, BadSample, CENTIPOINTS_PER_POINT, EXACT_WIN, MAX_MARGIN};

    #[test]
    fn selfplay_round_trips_through_the_file_and_is_deterministic() {
        let a = selfplay(&Run::new("alphabeta:depth=1", 4, 3), 2, &|_| {}).unwrap();
        assert_eq!(
            a,
            selfplay(&Run::new("alphabeta:depth=1", 4, 3), 1, &|_| {}).unwrap()
        );
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
        // The flags byte: exact samples round trip (results and margins),
        // other flags and exact scores that are neither are refused.
        let exact = Sample {
            score: -EXACT_WIN,
            exact: true,
            ..a[3]
        };
        assert_eq!(Sample::from_bytes(&exact.to_bytes()), Ok(exact));
        let margin = Sample {
            score: -7 * CENTIPOINTS_PER_POINT,
            ..exact
        };
        assert_eq!(Sample::from_bytes(&margin.to_bytes()), Ok(margin));
        let beyond = Sample {
            score: MAX_MARGIN + CENTIPOINTS_PER_POINT,
            ..exact
        };
        assert!(Sample::from_bytes(&beyond.to_bytes()).is_err());
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
    fn straying_is_drawn_per_game_and_ply_and_only_while_many_squares_are_free() {
        let run = Run::new("alphabeta:depth=1", 4, 3).exploring(0.3);
        let a = selfplay(&run, 2, &|_| {}).unwrap();
        assert_eq!(a, selfplay(&run, 1, &|_| {}).unwrap());
        let plain = selfplay(&Run::new("alphabeta:depth=1", 4, 3), 2, &|_| {}).unwrap();
        assert_ne!(a, plain);
        // The same opening and the same first position of every game: the
        // straying starts after them.
        assert_eq!(a[0].pos, plain[0].pos);

        // At probability 1 every move strays while more than 26 squares
        // are free, and none after; the move is a legal one.
        let always = Run::new("random", 1, 1).exploring(1.0);
        let mut pos = Position::START;
        let mut strayed = 0;
        while !pos.is_game_over() {
            let stray = always.stray(7, &pos);
            assert_eq!(stray.is_some(), pos.free().count() > STRAY_ABOVE_FREE);
            let m = stray.unwrap_or(pos.legal_moves()[0]);
            assert!(pos.legal_moves().contains(m), "{m} in {pos:?}");
            strayed += usize::from(stray.is_some());
            pos.play(m);
        }
        assert!(strayed > 10, "{strayed}");
        // A share of about the probability asked, over games.
        let tenth = Run::new("random", 1, 1).exploring(0.1);
        let strays = (0..10_000)
            .filter(|&g| tenth.stray(g, &Position::START).is_some())
            .count();
        assert!((900..1100).contains(&strays), "{strays}");
        assert!((0..1000).all(|g| Run::new("random", 1, 1)
            .stray(g, &Position::START)
            .is_none()));
    }

    #[test]
    fn monte_carlo_win_rates_become_centipoints_and_random_is_refused() {
        // mcts reports win rates; the file must hold them as centipoints on
        // the training scale, not as 0 or 1.
        let samples = selfplay(&Run::new("mcts:iterations=300", 2, 1), 1, &|_| {}).unwrap();
        let spread = samples.iter().filter(|s| s.score.abs() > 1).count();
        assert!(spread * 2 > samples.len(), "most scores are real values");
        for s in &samples {
            let p = yolah_players::score::expected_result(f64::from(s.score));
            assert!((0.0..=1.0).contains(&p));
        }
        let e = selfplay(&Run::new("random", 1, 1), 1, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("gives no score to learn from"), "{e}");
    }
}
