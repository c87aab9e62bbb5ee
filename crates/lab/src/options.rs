//! The options of the runs the lab owns, written once for every front end
//! (feature `cli`, with clap): `yolah tournament`, `selfplay` and
//! `random-games` flatten them next to their own `--threads` and
//! `--shard`, and `yolah-ray` (the Python package's Ray driver) next to
//! its `--workers`. Each turns into checked settings here, so an option
//! added to a run is written, parsed and checked in one place.

use crate::tournament::{Anchor, Settings, SettingsError};
use clap::Args;

/// The options of a round-robin tournament.
#[derive(Args, Clone, Debug, PartialEq, Eq)]
pub struct TournamentOptions {
    /// Player specs (two or more).
    #[arg(long, num_args = 2.., required = true)]
    pub players: Vec<String>,
    /// Games each pair plays (colours alternate; pairs share an opening).
    #[arg(long, value_parser = whole::<u64>(1, 1_000_000), allow_negative_numbers = true)]
    pub games_per_pair: u64,
    /// The JSONL file of finished games; running again resumes it.
    #[arg(long)]
    pub out: String,
    /// Seed of openings and players.
    #[arg(long, default_value_t = 0, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    pub seed: u64,
    /// The player whose rating is 0 (default: the first).
    #[arg(long)]
    pub anchor: Option<String>,
    /// A clock for both players of every game: BASE+INCREMENT in
    /// seconds, such as 10+0.1 (see match --tc).
    #[arg(long)]
    pub tc: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl TournamentOptions {
    /// The tournament's checked settings, and the index of its anchor.
    pub fn settings(&self) -> Result<(Settings, usize), SettingsError> {
        let settings = Settings::new(
            self.players.clone(),
            self.games_per_pair,
            self.seed,
            self.tc.clone(),
        )?;
        let anchor = settings.anchor(&self.anchor())?;
        Ok((settings, anchor))
    }

    /// The anchor asked for.
    pub fn anchor(&self) -> Anchor {
        self.anchor.clone().map_or(Anchor::First, Anchor::Named)
    }
}

/// The options of a self-play run.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct SelfplayOptions {
    /// The player, such as alphabeta:depth=4.
    #[arg(long)]
    pub player: String,
    /// Games to play.
    #[arg(long, value_parser = whole::<u64>(1, 10_000_000), allow_negative_numbers = true)]
    pub games: u64,
    /// Seed of the openings and players.
    #[arg(long, default_value_t = 0, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    pub seed: u64,
    /// The training file to write (its format: docs/formats.md, "Self-play files").
    #[arg(long)]
    pub out: String,
    /// The probability, from 0 to 1, that a move is a random legal move
    /// instead of the player's, while more than 26 squares are free: the
    /// games then reach positions the player alone would not (the
    /// position before the random move is kept, with the player's score).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub explore: f64,
}

impl SelfplayOptions {
    /// The run these options describe.
    pub fn run(&self) -> crate::selfplay::Run {
        crate::selfplay::Run::new(&self.player, self.games, self.seed).exploring(self.explore)
    }

    /// Checks that the player spec makes a player, before any game.
    pub fn check(&self) -> Result<(), yolah_players::SpecError> {
        yolah_players::from_spec(&self.player).map(drop)
    }
}

/// The options of a count of random games.
#[derive(Args, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomGamesOptions {
    /// Number of games.
    #[arg(long, default_value_t = 1_000_000, value_parser = whole::<u64>(1, u64::MAX), allow_negative_numbers = true)]
    pub games: u64,
    /// Seed: the same seed and games give the same counts on any number of threads.
    #[arg(long, default_value_t = 0, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    pub seed: u64,
}

/// The value parser of a whole number from `least` to `most`: a count, a
/// size, a seed, in every front end's options. Those options also set
/// `allow_negative_numbers`, so that `--games -1` reaches it (clap would
/// otherwise take `-1` for an unknown option and suggest `-- -1`) and is
/// refused for what it is; clap then says, for instance, `invalid value
/// '-1' for '--games <GAMES>': it cannot be negative`. `-0` is zero.
pub fn whole<T: TryFrom<u64>>(
    least: u64,
    most: u64,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    use std::num::IntErrorKind;
    move |text| {
        let digits = match text.strip_prefix('-') {
            Some(rest) if !rest.is_empty() && rest.bytes().all(|b| b == b'0') => "0",
            Some(rest)
                if rest.starts_with(|c: char| c.is_ascii_digit())
                    && rest.parse::<f64>().is_ok() =>
            {
                return Err("it cannot be negative".to_string());
            }
            _ => text,
        };
        let n: u64 = digits
            .parse()
            .map_err(|e: std::num::ParseIntError| match e.kind() {
                IntErrorKind::Empty => "it is empty: give a whole number".to_string(),
                IntErrorKind::PosOverflow => format!("it is above {most}"),
                _ => "it is not a whole number (digits only, such as 1000)".to_string(),
            })?;
        if most == u64::MAX && n < least {
            return Err(format!("it must be at least {least}"));
        }
        if !(least..=most).contains(&n) {
            return Err(format!("{n} is not in {least}..={most}"));
        }
        T::try_from(n).map_err(|_| format!("it is above {most}"))
    }
}

/// Parses a probability: a number from 0 to 1, such as 0.1.
pub fn probability(text: &str) -> Result<f64, String> {
    let p: f64 = text
        .trim()
        .parse()
        .map_err(|_| "it is not a number (such as 0.1)".to_string())?;
    check_probability(p)
}

/// `p` if it is a probability (from 0 to 1), else why not: the one rule
/// for `--explore` and for the Python functions that take it.
pub fn check_probability(p: f64) -> Result<f64, String> {
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("{p} is not a probability (from 0 to 1)"));
    }
    Ok(p)
}

#[cfg(test)]
mod whole_tests {
    use super::{probability, whole};

    #[test]
    fn probabilities_are_from_0_to_1() {
        assert_eq!(probability("0.1"), Ok(0.1));
        assert_eq!(probability("1"), Ok(1.0));
        assert_eq!(probability("0"), Ok(0.0));
        assert_eq!(probability("-0"), Ok(0.0));
        for bad in ["1.5", "-0.1", "inf"] {
            assert!(
                probability(bad).unwrap_err().contains("not a probability"),
                "{bad}"
            );
        }
        for bad in ["NaN", "x", ""] {
            assert!(probability(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn whole_numbers_say_what_is_wrong() {
        let games = whole::<u64>(1, 100);
        assert_eq!(games("7"), Ok(7));
        assert_eq!(games("-1"), Err("it cannot be negative".into()));
        assert_eq!(games("-2.5"), Err("it cannot be negative".into()));
        assert_eq!(games("0"), Err("0 is not in 1..=100".into()));
        assert_eq!(games("-0"), Err("0 is not in 1..=100".into()));
        assert_eq!(games("101"), Err("101 is not in 1..=100".into()));
        let not_whole = Err("it is not a whole number (digits only, such as 1000)".into());
        for text in ["-x", "x", "1e6", "1_000", "2.5", "-inf"] {
            assert_eq!(games(text), not_whole, "{text}");
        }
        assert_eq!(games(""), Err("it is empty: give a whole number".into()));
        let seed = whole::<u64>(0, u64::MAX);
        assert_eq!(seed("-0"), Ok(0));
        assert_eq!(seed("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            seed("18446744073709551616"),
            Err("it is above 18446744073709551615".into())
        );
        let positive = whole::<u64>(1, u64::MAX);
        assert_eq!(positive("0"), Err("it must be at least 1".into()));
        let threads = whole::<u16>(1, crate::MAX_RUN_THREADS);
        assert_eq!(threads("1024"), Ok(1024));
        let port = whole::<u16>(0, u16::MAX.into());
        assert_eq!(port("65536"), Err("65536 is not in 0..=65535".into()));
    }
}

#[cfg(test)]
mod help_tests {
    use super::SelfplayOptions;
    use crate::selfplay::STRAY_ABOVE_FREE;
    use clap::{Args, Command};

    /// `--explore`'s help gives the threshold in words: it must be the
    /// constant the self-play uses.
    #[test]
    fn explore_help_names_the_threshold_self_play_uses() {
        let command = SelfplayOptions::augment_args(Command::new("selfplay"));
        let explore = command
            .get_arguments()
            .find(|a| a.get_id() == "explore")
            .unwrap();
        let help = explore.get_help().unwrap().to_string();
        let words = format!("while more than {STRAY_ABOVE_FREE} squares are free");
        assert!(help.contains(&words), "{help}");
    }
}
