//! The limits of a `go` command, and the `info` lines a search reports.

use std::time::Duration;
use yolah::Color;
use yolah_players::{Analysis, Budget, GameClock, Score, MAX_DEPTH};

/// The limits of a `go` command.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GoLimits {
    movetime: Option<u64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    clock: [Option<u64>; 2],
    increment: [u64; 2],
    infinite: bool,
}

impl GoLimits {
    /// Reads the words after `go`.
    pub fn parse(words: &[&str]) -> Result<GoLimits, String> {
        let mut limits = GoLimits::default();
        let mut it = words.iter();
        while let Some(&word) = it.next() {
            if word == "infinite" {
                limits.infinite = true;
                continue;
            }
            let value = it
                .next()
                .ok_or_else(|| format!("{word} needs a number"))?
                .parse::<u64>()
                .map_err(|_| format!("{word} needs a whole number"))?;
            match word {
                "movetime" => limits.movetime = Some(value.max(1)),
                "depth" => {
                    let depth = u32::try_from(value).ok().filter(|d| (1..=MAX_DEPTH).contains(d));
                    limits.depth = Some(depth.ok_or(format!("depth must be from 1 to {MAX_DEPTH}"))?);
                }
                "nodes" => limits.nodes = Some(value.max(1)),
                "btime" => limits.clock[Color::Black as usize] = Some(value),
                "wtime" => limits.clock[Color::White as usize] = Some(value),
                "binc" => limits.increment[Color::Black as usize] = value,
                "winc" => limits.increment[Color::White as usize] = value,
                other => return Err(format!("unknown limit {other:?} (movetime, depth, nodes, btime, wtime, binc, winc, infinite)")),
            }
        }
        Ok(limits)
    }

    /// The game clock, when `side`'s budget is a share of it (its time
    /// given, no `movetime`, not `infinite`), each side's time less the
    /// overhead (nothing for a side whose time is not given), so that a
    /// player that manages its own time stays inside it.
    pub fn game_clock(&self, side: Color, overhead_ms: u64) -> Option<GameClock> {
        if self.clock[side as usize].is_none() || self.movetime.is_some() || self.infinite {
            return None;
        }
        let left =
            |ms: Option<u64>| Duration::from_millis(ms.unwrap_or(0).saturating_sub(overhead_ms));
        Some(GameClock {
            remaining: self.clock.map(left),
            increment: self.increment.map(Duration::from_millis),
        })
    }

    /// The budget for `side` to move: the tightest limit given, the share
    /// of its clock, or the player's own budget when there is none.
    pub fn budget(&self, side: Color, overhead_ms: u64) -> Option<Budget> {
        if self.infinite {
            return Some(Budget::Infinite);
        }
        let from_clock = self.clock[side as usize].map(|left| {
            GameClock::time_for_move(
                Duration::from_millis(left),
                Duration::from_millis(self.increment[side as usize]),
                Duration::from_millis(overhead_ms),
            )
            .as_millis() as u64
        });
        let time = match (self.movetime, from_clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // One budget per search: time wins (it protects the clock), then
        // nodes, then depth.
        if let Some(ms) = time {
            Some(Budget::Time(Duration::from_millis(ms)))
        } else if let Some(n) = self.nodes {
            Some(Budget::Count(n))
        } else {
            self.depth.map(Budget::Depth)
        }
    }
}

/// The `info` line of a search's progress.
pub fn info_line(a: &Analysis) -> String {
    let mut line = String::from("info");
    if let Some(d) = a.depth {
        line += &format!(" depth {d}");
    }
    if let Some(i) = a.iterations {
        line += &format!(" iterations {i}");
    }
    match a.score {
        Score::Centipoints(c) => line += &format!(" score cp {c}"),
        Score::WinRate(p) => line += &format!(" score winrate {p:.4}"),
        Score::Unknown => {}
    }
    let nps = (a.nodes as f64 / a.seconds.max(1e-6)) as u64;
    line += &format!(
        " nodes {} nps {nps} time {}",
        a.nodes,
        (a.seconds * 1e3) as u64
    );
    if !a.pv.is_empty() {
        line += " pv";
        for m in &a.pv {
            line += &format!(" {m}");
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_limits_become_one_budget() {
        let parse = |t: &str| GoLimits::parse(&t.split_whitespace().collect::<Vec<_>>());
        let black = Color::Black;
        assert_eq!(parse("").unwrap().budget(black, 30), None);
        assert_eq!(
            parse("depth 5").unwrap().budget(black, 30),
            Some(Budget::Depth(5))
        );
        assert_eq!(
            parse("nodes 1000 depth 5").unwrap().budget(black, 30),
            Some(Budget::Count(1000))
        );
        // 10 s left and 100 ms a move: a twentieth plus three quarters.
        assert_eq!(
            parse("btime 10000 wtime 1 binc 100")
                .unwrap()
                .budget(black, 30),
            Some(Budget::Time(Duration::from_millis(575)))
        );
        // Never more than the clock less the overhead, never nothing.
        assert_eq!(
            parse("wtime 40 winc 1000")
                .unwrap()
                .budget(Color::White, 30),
            Some(Budget::Time(Duration::from_millis(10)))
        );
        assert_eq!(
            parse("wtime 5").unwrap().budget(Color::White, 30),
            Some(Budget::Time(Duration::from_millis(1)))
        );
        assert_eq!(
            parse("movetime 50 btime 100000").unwrap().budget(black, 30),
            Some(Budget::Time(Duration::from_millis(50)))
        );
        assert_eq!(
            parse("infinite").unwrap().budget(black, 30),
            Some(Budget::Infinite)
        );
        // Our players see the clock, less the overhead, only when their
        // budget is a share of it.
        let clock = parse("btime 10000 wtime 2000 binc 100 winc 100").unwrap();
        assert_eq!(
            clock.game_clock(black, 30),
            Some(GameClock {
                remaining: [Duration::from_millis(9970), Duration::from_millis(1970)],
                increment: [Duration::from_millis(100); 2],
            })
        );
        assert_eq!(
            clock.game_clock(Color::White, 30).map(|c| c.remaining[1]),
            Some(Duration::from_millis(1970))
        );
        assert_eq!(parse("wtime 500").unwrap().game_clock(black, 30), None);
        assert_eq!(
            parse("btime 500 movetime 50")
                .unwrap()
                .game_clock(black, 30),
            None
        );
        assert_eq!(parse("depth 5").unwrap().game_clock(black, 30), None);
        for bad in ["depth", "depth x", "depth 0", "speed 3", "nodes -1"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
