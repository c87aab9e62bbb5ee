//! What a tournament is (its players, games, seed and clock), and the one
//! place its rules are checked: the `yolah` command, the Python module and
//! the Ray driver all build their [`Settings`] through [`Settings::new`].

use crate::games::{ParseTimeControlError, TimeControl};
use serde::{Deserialize, Serialize};
use std::fmt;
use yolah_players::{from_spec, SpecError};

/// The most players a tournament may have.
pub const MAX_PLAYERS: usize = 1000;
/// The most games a pair may play.
pub const MAX_GAMES_PER_PAIR: u64 = 1_000_000;
/// The most games a tournament may have.
pub const MAX_GAMES: u64 = 100_000_000;

/// What a tournament is: its players and settings, as the header records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Player specs, in order.
    pub players: Vec<String>,
    /// Games each pair plays.
    pub games_per_pair: u64,
    /// Seed of openings and players.
    pub seed: u64,
    /// The time control (`10+0.1`), if the games have a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
}

/// Why settings make no tournament, or name no player of it.
#[derive(Debug)]
pub enum SettingsError {
    /// Fewer than 2 or more than [`MAX_PLAYERS`] players.
    PlayerCount(usize),
    /// A player listed twice.
    Duplicate {
        /// Its spec.
        player: String,
        /// Its second place in the list, from 0.
        again: usize,
    },
    /// Games per pair outside 1 to [`MAX_GAMES_PER_PAIR`].
    GamesPerPair(u64),
    /// More than [`MAX_GAMES`] games in all.
    TooManyGames(u64),
    /// A player spec that makes no player.
    Spec(SpecError),
    /// A time control that does not parse.
    TimeControl(ParseTimeControlError),
    /// An anchor that is none of the players.
    Anchor {
        /// The anchor asked for.
        asked: Anchor,
        /// How many players there are.
        players: usize,
    },
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::PlayerCount(n) => {
                write!(f, "a tournament has 2 to {MAX_PLAYERS} players, not {n}")
            }
            SettingsError::Duplicate { player, again } => {
                write!(
                    f,
                    "player {player:?} is listed twice (again as player {again})"
                )
            }
            SettingsError::GamesPerPair(n) => {
                write!(f, "a pair plays 1 to {MAX_GAMES_PER_PAIR} games, not {n}")
            }
            SettingsError::TooManyGames(n) => {
                write!(
                    f,
                    "{n} games is more than a tournament may have ({MAX_GAMES})"
                )
            }
            SettingsError::Spec(e) => write!(f, "{e}"),
            SettingsError::TimeControl(e) => write!(f, "--tc: {e}"),
            SettingsError::Anchor {
                asked: Anchor::Named(name),
                ..
            } => write!(f, "--anchor {name:?} is not one of the --players"),
            SettingsError::Anchor { asked, players } => write!(
                f,
                "anchor {asked} is not a player's index (0 to {})",
                players.saturating_sub(1)
            ),
        }
    }
}

/// Its text says it all (no `source`, which would print it twice).
impl std::error::Error for SettingsError {}

/// The player whose rating is 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Anchor {
    /// The first player.
    #[default]
    First,
    /// The player of this spec.
    Named(String),
    /// The player at this index, from 0.
    Index(usize),
}

impl fmt::Display for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Anchor::First => f.write_str("the first player"),
            Anchor::Named(name) => write!(f, "{name:?}"),
            Anchor::Index(i) => write!(f, "{i}"),
        }
    }
}

impl Settings {
    /// The settings of a tournament to play, checked: every rule of
    /// [`Settings::check`], and every player spec and the time control
    /// must parse.
    pub fn new(
        players: Vec<String>,
        games_per_pair: u64,
        seed: u64,
        tc: Option<String>,
    ) -> Result<Settings, SettingsError> {
        let settings = Settings {
            players,
            games_per_pair,
            seed,
            tc,
        };
        settings.check()?;
        settings.time_control()?;
        for p in &settings.players {
            from_spec(p).map_err(SettingsError::Spec)?;
        }
        Ok(settings)
    }

    /// Whether these settings make a tournament: 2 to [`MAX_PLAYERS`]
    /// different players, 1 to [`MAX_GAMES_PER_PAIR`] games a pair, at most
    /// [`MAX_GAMES`] games in all. (What a file's header must satisfy; the
    /// specs are not made into players, so a file can be read on a machine
    /// without its players' networks.)
    pub fn check(&self) -> Result<(), SettingsError> {
        let n = self.players.len();
        if !(2..=MAX_PLAYERS).contains(&n) {
            return Err(SettingsError::PlayerCount(n));
        }
        if let Some((again, p)) = self
            .players
            .iter()
            .enumerate()
            .find(|(i, p)| self.players[..*i].contains(p))
        {
            return Err(SettingsError::Duplicate {
                player: p.clone(),
                again,
            });
        }
        if !(1..=MAX_GAMES_PER_PAIR).contains(&self.games_per_pair) {
            return Err(SettingsError::GamesPerPair(self.games_per_pair));
        }
        let total = self.total_games();
        if total > MAX_GAMES {
            return Err(SettingsError::TooManyGames(total));
        }
        Ok(())
    }

    /// The clock of every game, if the settings give one.
    pub fn time_control(&self) -> Result<Option<TimeControl>, SettingsError> {
        self.tc
            .as_deref()
            .map(TimeControl::parse)
            .transpose()
            .map_err(SettingsError::TimeControl)
    }

    /// The index of the anchor player, if it is one of the players.
    pub fn anchor(&self, anchor: &Anchor) -> Result<usize, SettingsError> {
        let found = match anchor {
            Anchor::First => Some(0),
            Anchor::Named(name) => self.players.iter().position(|p| p == name),
            Anchor::Index(i) => (*i < self.players.len()).then_some(*i),
        };
        found.ok_or_else(|| SettingsError::Anchor {
            asked: anchor.clone(),
            players: self.players.len(),
        })
    }

    /// How many games the tournament has: pairs × games per pair.
    pub fn total_games(&self) -> u64 {
        let n = self.players.len() as u64;
        n * n.saturating_sub(1) / 2 * self.games_per_pair
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(players: &[&str]) -> Result<Settings, SettingsError> {
        let players = players.iter().map(|p| p.to_string()).collect();
        Settings::new(players, 2, 0, None)
    }

    #[test]
    fn every_rule_is_checked_and_says_what_is_wrong() {
        assert!(settings(&["random", "mc:playouts=10"]).is_ok());
        let e = settings(&["random"]).unwrap_err();
        assert!(matches!(e, SettingsError::PlayerCount(1)), "{e}");
        let e = settings(&["random", "mc", "random"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "player \"random\" is listed twice (again as player 2)"
        );
        let e = settings(&["random", "chess"]).unwrap_err();
        assert!(matches!(e, SettingsError::Spec(_)), "{e}");
        let players = vec!["random".to_string(), "mc".to_string()];
        let e = Settings::new(players.clone(), 0, 0, None).unwrap_err();
        assert!(matches!(e, SettingsError::GamesPerPair(0)), "{e}");
        let e = Settings::new(players.clone(), 2, 0, Some("10+".into())).unwrap_err();
        assert!(e.to_string().starts_with("--tc: \"10+\""), "{e}");
        let s = Settings::new(players, 2, 0, Some("10+0.1".into())).unwrap();
        assert_eq!(s.total_games(), 2);
    }

    #[test]
    fn an_anchor_is_one_of_the_players() {
        let s = settings(&["random", "mc"]).unwrap();
        assert_eq!(s.anchor(&Anchor::First).unwrap(), 0);
        assert_eq!(s.anchor(&Anchor::Named("mc".into())).unwrap(), 1);
        assert_eq!(s.anchor(&Anchor::Index(1)).unwrap(), 1);
        let e = s.anchor(&Anchor::Named("mcts".into())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--anchor \"mcts\" is not one of the --players"
        );
        let e = s.anchor(&Anchor::Index(2)).unwrap_err();
        assert_eq!(e.to_string(), "anchor 2 is not a player's index (0 to 1)");
    }
}
