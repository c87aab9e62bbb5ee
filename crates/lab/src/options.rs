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
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub games_per_pair: u64,
    /// The JSONL file of finished games; running again resumes it.
    #[arg(long)]
    pub out: String,
    /// Seed of openings and players.
    #[arg(long, default_value_t = 0)]
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
#[derive(Args, Clone, Debug, PartialEq, Eq)]
pub struct SelfplayOptions {
    /// The player, such as alphabeta:depth=4.
    #[arg(long)]
    pub player: String,
    /// Games to play.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub games: u64,
    /// Seed of the openings and players.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The training file to write (format in crates/lab/src/positions.rs).
    #[arg(long)]
    pub out: String,
}

impl SelfplayOptions {
    /// Checks that the player spec makes a player, before any game.
    pub fn check(&self) -> Result<(), yolah_players::SpecError> {
        yolah_players::from_spec(&self.player).map(drop)
    }
}

/// The options of a count of random games.
#[derive(Args, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomGamesOptions {
    /// Number of games.
    #[arg(long, default_value_t = 1_000_000)]
    pub games: u64,
    /// Seed: the same seed and games give the same counts on any number of threads.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}
