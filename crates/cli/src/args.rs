//! What several commands take: where a game starts, and the value parsers
//! of durations and rates.

use anyhow::{Context, Result};
use clap::Args;
use yolah::record::GameRecord;
use yolah::{Color, Position};

pub use yolah_lab::options::whole;

/// Where a command starts: the usual start, a position, or moves from the start.
#[derive(Args)]
pub struct StartArgs {
    /// Moves played from the start, like "d5:b7 e5:c7".
    #[arg(long, conflicts_with = "position")]
    moves: Option<String>,
    /// A position in text form, like "w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0".
    #[arg(long)]
    position: Option<String>,
}

impl StartArgs {
    /// The position these arguments name.
    pub fn position(&self) -> Result<Position> {
        if let Some(text) = &self.position {
            return text.parse::<Position>().context("--position");
        }
        match &self.moves {
            None => Ok(Position::START),
            Some(moves) => {
                let record = GameRecord::parse(moves)?;
                Ok(record.replay().context("--moves")?)
            }
        }
    }
}

/// A number of at least 1 (a rate, a burst).
pub fn positive_number(text: &str) -> std::result::Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 1.0)
        .ok_or_else(|| format!("{text:?} is not a number of at least 1"))
}

/// A duration such as `500ms` or `60s`.
pub fn parse_duration_arg(text: &str) -> std::result::Result<std::time::Duration, String> {
    yolah_players::parse_duration(text)
        .ok_or_else(|| format!("{text:?} is not a duration like 500ms or 60s"))
}

/// Refuses a finished game, on which `what` ("solve", "analyse") has
/// nothing to work: the error gives the final score.
pub fn ensure_not_over(pos: &Position, what: &str) -> Result<()> {
    if pos.is_game_over() {
        anyhow::bail!(
            "the game is over (black {}, white {}): nothing to {what}",
            pos.score(Color::Black),
            pos.score(Color::White)
        );
    }
    Ok(())
}
