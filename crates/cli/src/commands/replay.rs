//! `yolah replay`: check a game move by move and show how it ended.

use anyhow::{anyhow, Result};
use clap::Args;
use serde_json::json;
use yolah::record::{GameRecord, RecordError};
use yolah::Color;

/// What `yolah replay` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Check a game move by move and show how it ended. FILE is a JSON record \
    ({\"moves\": [...]}) or a text list of moves like `d5:b7 e5:c7`";

/// `yolah replay`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct ReplayArgs {
    /// The game file.
    file: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl ReplayArgs {
    /// Replays the file and returns what `replay` prints.
    pub fn run(self) -> Result<String> {
        let file = &self.file;
        // A file error names the file itself; the others say where in it,
        // down to the line of a bad move in a text move list.
        let located = |e: RecordError| match (&e, e.line()) {
            (RecordError::File(_), _) => anyhow!(e),
            (_, Some(line)) => anyhow!("{file}:{line}: {e}"),
            (_, None) => anyhow!("{file}: {e}"),
        };
        let record = GameRecord::load(file).map_err(located)?;
        let end = record.replay().map_err(located)?;
        let over = end.is_game_over();
        let winner = match (over, end.winner()) {
            (false, _) => None,
            (true, Some(c)) => Some(c.name()),
            (true, None) => Some("draw"),
        };
        if self.json {
            return Ok(format!(
                "{}\n",
                json!({
                    "plies": record.moves.len(),
                    "black_score": end.score(Color::Black),
                    "white_score": end.score(Color::White),
                    "game_over": over,
                    "winner": winner,
                    "position": end.to_text(),
                })
            ));
        }
        let result = match winner {
            None => "the game is not over".to_string(),
            Some("draw") => "draw".to_string(),
            Some(w) => format!("{w} wins"),
        };
        Ok(format!(
            "{end}\n{} moves, all legal; {result} ({} - {})\nposition: {}\n",
            record.moves.len(),
            end.score(Color::Black),
            end.score(Color::White),
            end.to_text()
        ))
    }
}
