//! Training positions: the file format and self-play that writes it.
//!
//! A file is the 8 bytes `YOLAHPOS` and then 32-byte records, little endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | black pieces (bitboard, bit 0 = a1) |
//! | 8..16 | white pieces |
//! | 16..24 | holes |
//! | 24 | black score |
//! | 25 | white score |
//! | 26..28 | ply (`u16`; the side to move is Black on even plies) |
//! | 28..30 | search score for the side to move (`i16`, centipoints) |
//! | 30 | final result for the side to move (`i8`: 1 win, 0 draw, -1 loss) |
//! | 31 | 0 |

use crate::games::random_opening;
use crate::players::{from_spec, with_seed, SpecError};
use crate::rng::splitmix64;
use crate::{Bitboard, Color, Position};

const MAGIC: &[u8; 8] = b"YOLAHPOS";
/// Bytes per record.
pub const RECORD_BYTES: usize = 32;

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The position.
    pub pos: Position,
    /// The searching player's score for the side to move, in centipoints.
    pub score: i16,
    /// How the game ended for the side to move: 1, 0 or -1.
    pub result: i8,
}

impl Sample {
    fn to_bytes(self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0..8].copy_from_slice(&self.pos.pieces(Color::Black).0.to_le_bytes());
        b[8..16].copy_from_slice(&self.pos.pieces(Color::White).0.to_le_bytes());
        b[16..24].copy_from_slice(&self.pos.holes().0.to_le_bytes());
        b[24] = self.pos.score(Color::Black);
        b[25] = self.pos.score(Color::White);
        b[26..28].copy_from_slice(&self.pos.ply().to_le_bytes());
        b[28..30].copy_from_slice(&self.score.to_le_bytes());
        b[30] = self.result as u8;
        b
    }

    fn from_bytes(b: &[u8]) -> Result<Sample, String> {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let pos = Position::from_parts(
            Bitboard(u64_at(0)),
            Bitboard(u64_at(8)),
            Bitboard(u64_at(16)),
            b[24],
            b[25],
            u16::from_le_bytes([b[26], b[27]]),
        )?;
        let result = b[30] as i8;
        if !(-1..=1).contains(&result) {
            return Err(format!("result {result} is not -1, 0 or 1"));
        }
        Ok(Sample {
            pos,
            score: i16::from_le_bytes([b[28], b[29]]),
            result,
        })
    }
}

/// Writes samples in the file format.
pub fn write(path: &str, samples: &[Sample]) -> Result<(), String> {
    let mut bytes = MAGIC.to_vec();
    for s in samples {
        bytes.extend(s.to_bytes());
    }
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {path}: {e}"))
}

/// Reads a training file, checking every record.
pub fn read(path: &str) -> Result<Vec<Sample>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(format!(
            "{path} is not a training file (it must start with YOLAHPOS)"
        ));
    }
    let body = &bytes[8..];
    if body.len() % RECORD_BYTES != 0 {
        return Err(format!(
            "{path}: {} bytes is not a whole number of 32-byte records",
            body.len()
        ));
    }
    body.chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(i, r)| Sample::from_bytes(r).map_err(|e| format!("{path}: record {}: {e}", i + 1)))
        .collect()
}

/// Plays game `index` of a self-play run with `spec` on both sides (after a
/// random opening of 6 plies) and returns its positions: every position
/// where the side to move had a real choice, with the search score.
pub fn selfplay_game(spec: &str, seed: u64, index: u64) -> Result<Vec<Sample>, SpecError> {
    let game_seed = splitmix64(seed ^ splitmix64(index));
    let mut black = from_spec(&with_seed(spec, game_seed))?;
    let mut white = from_spec(&with_seed(spec, splitmix64(game_seed)))?;
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
            seen.push((pos, a.score.clamp(-30000.0, 30000.0) as i16));
        }
        if let Err(e) = pos.try_play(a.best_move) {
            panic!(
                "{spec} chose an illegal move {} in {pos:?}: {e}",
                a.best_move
            );
        }
    }
    let end = pos;
    let outcome = |side: Color| -> i8 {
        match end.score(side).cmp(&end.score(side.opponent())) {
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Less => -1,
        }
    };
    Ok(seen
        .into_iter()
        .map(|(pos, score)| Sample {
            pos,
            score,
            result: outcome(pos.side_to_move()),
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
) -> Result<Vec<Sample>, SpecError> {
    from_spec(spec)?;
    let games = crate::parallel::map_indexed(
        games as usize,
        threads,
        |i| selfplay_game(spec, seed, i as u64),
        progress,
    )?;
    Ok(games.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selfplay_round_trips_through_the_file_and_is_deterministic() {
        let a = selfplay("alphabeta:depth=1", 4, 3, 2, &|_| {}).unwrap();
        assert_eq!(a, selfplay("alphabeta:depth=1", 4, 3, 1, &|_| {}).unwrap());
        assert!(a.len() > 40);
        assert!(a.iter().all(|s| (-1..=1).contains(&s.result)));
        let path = std::env::temp_dir().join(format!("yolah-pos-{}.bin", std::process::id()));
        let path = path.to_str().unwrap();
        write(path, &a).unwrap();
        assert_eq!(read(path).unwrap(), a);
        std::fs::write(path, b"YOLAHPOS1234").unwrap();
        assert!(read(path).unwrap_err().contains("whole number"));
        std::fs::write(path, b"nonsense").unwrap();
        assert!(read(path).unwrap_err().contains("not a training file"));
    }
}
