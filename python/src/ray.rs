//! `yolah-ray`'s command line (the Ray driver in `yolah.distributed`),
//! parsed here with the very option definitions of the `yolah` command's
//! runs ([`yolah_lab::options`]) and checked by the lab as the command
//! checks them: an option added to a run is written once, and both
//! front ends take it.

use crate::errors::spec_error;
use crate::players::settings_error;
use clap::{Parser, Subcommand};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yolah_lab::options::{whole, RandomGamesOptions, SelfplayOptions, TournamentOptions};

/// `yolah-ray`: the runs of the `yolah` command, as Ray tasks.
#[derive(Parser)]
#[command(
    name = "yolah-ray",
    version,
    about = "Tournaments, self-play and random games on Ray, with the results of the yolah \
             command for the same seed."
)]
struct RayCli {
    /// A Ray cluster (default: start Ray on this machine).
    #[arg(long)]
    address: Option<String>,
    /// Tasks running at once (default: the CPUs).
    #[arg(long, value_parser = whole::<u64>(1, 1_000_000), allow_negative_numbers = true)]
    workers: Option<u64>,
    /// Games one task plays.
    #[arg(long, value_parser = whole::<u64>(1, u64::MAX), allow_negative_numbers = true)]
    games_per_task: Option<u64>,
    #[command(subcommand)]
    command: RayCommand,
}

#[derive(Subcommand)]
enum RayCommand {
    /// A round robin into a resumable JSONL file (as `yolah tournament`).
    Tournament(TournamentOptions),
    /// A training file of self-play positions (as `yolah selfplay`).
    Selfplay {
        #[command(flatten)]
        run: SelfplayOptions,
        /// Where the shards wait until they are merged (default: OUT.shards/).
        #[arg(long)]
        work_dir: Option<String>,
    },
    /// Count the results of random games (as `yolah random-games --json`).
    RandomGames(RandomGamesOptions),
}

/// Parses `yolah-ray`'s arguments `argv` (without the program name) and
/// checks the run they describe (player specs, clock, anchor) before any
/// task. Returns a dict: `command` (`tournament`, `selfplay` or
/// `random_games`), the run's options by their long names (a tournament's
/// `anchor` as the index of its player), and `address`, `workers`,
/// `games_per_task` (`None` when not given). When clap stops instead
/// (`--help`, `--version`, a usage error), the dict holds `exit` (the exit
/// status), `message` (what to print) and `stderr` (where).
#[pyfunction]
pub fn ray_command<'py>(py: Python<'py>, argv: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let cli = match RayCli::try_parse_from(std::iter::once("yolah-ray".to_string()).chain(argv)) {
        Ok(cli) => cli,
        Err(e) => {
            d.set_item("exit", e.exit_code())?;
            d.set_item("message", e.render().to_string())?;
            d.set_item("stderr", e.use_stderr())?;
            return Ok(d);
        }
    };
    d.set_item("address", cli.address)?;
    d.set_item("workers", cli.workers)?;
    d.set_item("games_per_task", cli.games_per_task)?;
    match cli.command {
        RayCommand::Tournament(run) => {
            let (settings, anchor) = run.settings().map_err(settings_error)?;
            d.set_item("command", "tournament")?;
            d.set_item("players", settings.players)?;
            d.set_item("games_per_pair", settings.games_per_pair)?;
            d.set_item("seed", settings.seed)?;
            d.set_item("tc", settings.tc)?;
            d.set_item("out", run.out)?;
            d.set_item("anchor", anchor)?;
            d.set_item("json", run.json)?;
        }
        RayCommand::Selfplay { run, work_dir } => {
            run.check().map_err(spec_error)?;
            d.set_item("command", "selfplay")?;
            d.set_item("player", run.player)?;
            d.set_item("games", run.games)?;
            d.set_item("seed", run.seed)?;
            d.set_item("explore", run.explore)?;
            d.set_item("out", run.out)?;
            d.set_item("work_dir", work_dir)?;
        }
        RayCommand::RandomGames(run) => {
            d.set_item("command", "random_games")?;
            d.set_item("games", run.games)?;
            d.set_item("seed", run.seed)?;
        }
    }
    Ok(d)
}
