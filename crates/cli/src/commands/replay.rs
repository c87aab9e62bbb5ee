//! `yolah replay`: check a game move by move and show how it ended.

use anyhow::{anyhow, Result};
use clap::Args;
use serde_json::json;
use yolah::file::read_text_limited;
use yolah::record::{GameRecord, RecordError, MAX_RECORD_BYTES};
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
        // A file error names the file itself; the others say where in it.
        // The file is read once (it may be a pipe), and a bad move of a
        // text move list also names its line.
        let text = read_text_limited(file, MAX_RECORD_BYTES).map_err(RecordError::File)?;
        let located = |e: RecordError| match e {
            RecordError::File(_) => anyhow!(e),
            RecordError::Move { ply, .. } => match GameRecord::move_line(&text, ply) {
                Some(line) => anyhow!("{file}:{line}: {e}"),
                None => anyhow!("{file}: {e}"),
            },
            _ => anyhow!("{file}: {e}"),
        };
        if text.trim().is_empty() {
            return Err(located(RecordError::Empty));
        }
        let record = GameRecord::parse(&text).map_err(located)?;
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
