//! The `yolah` command: play, watch, analyse and measure games of Yolah.
//!
//! Each command lives in `commands/NAME.rs` (its arguments and its `run`);
//! this file only names them and prints what they return.
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod args;
mod commands;
mod paths;
mod progress;

use anyhow::Result;
use clap::{Parser, Subcommand};
use commands::*;
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "yolah", version, about = "The Yolah board game engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Deferred (clap's `defer`): on each start clap builds the arguments of
// the command given only, not those of every command (0.1 ms off every
// start; `yolah perft 1` takes 0.6 ms). Each command's description is then
// set twice from its module's `ABOUT`: here for `yolah --help`'s list, and
// on its arguments for its own help (a deferred argument struct's doc
// comment would otherwise replace it; tests/help.rs checks).
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    #[command(about = perft::ABOUT)]
    Perft(perft::PerftArgs),
    #[command(about = random_games::ABOUT)]
    RandomGames(random_games::RandomGamesArgs),
    #[command(about = play::ABOUT)]
    Play(play::PlayArgs),
    #[command(about = r#match::ABOUT)]
    Match(r#match::MatchArgs),
    #[command(about = tournament::ABOUT)]
    Tournament(tournament::TournamentArgs),
    #[command(about = tune::ABOUT)]
    Tune(tune::TuneArgs),
    #[command(about = selfplay::ABOUT)]
    Selfplay(selfplay::SelfplayArgs),
    #[command(about = label::ABOUT)]
    Label(label::LabelArgs),
    #[command(about = merge::ABOUT)]
    Merge(merge::MergeArgs),
    #[command(about = train::ABOUT)]
    Train(train::TrainArgs),
    #[command(about = validate::ABOUT)]
    Validate(validate::ValidateArgs),
    #[command(about = serve::ABOUT)]
    Serve(Box<serve::ServeArgs>),
    #[command(about = engine::ABOUT)]
    Engine(engine::EngineArgs),
    #[command(about = analyse::ABOUT)]
    Analyse(analyse::AnalyseArgs),
    #[command(about = solve::ABOUT)]
    Solve(solve::SolveArgs),
    #[command(about = replay::ABOUT)]
    Replay(replay::ReplayArgs),
}

fn main() -> ExitCode {
    // Counts and seeds refuse negative numbers in their own value parser
    // (`args::whole`), so clap's own errors need no rewriting here.
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(out) => match std::io::stdout().lock().write_all(out.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            // A reader that stopped early (`| head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                say(&format!("yolah: error: cannot write the output: {e}"));
                ExitCode::FAILURE
            }
        },
        // A command that writes as it goes (`play`, `engine`) meets the
        // closed pipe itself: no error either.
        Err(e) if closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            say(&format!("yolah: error: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` comes from writing to a reader that has gone (`| head`).
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Writes a line to stderr, if it is still there: `eprintln!` would panic
/// on a closed stderr (`2>&1 | head`).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Runs a command and returns what it prints.
fn run(command: Command) -> Result<String> {
    match command {
        Command::Perft(args) => args.run(),
        Command::RandomGames(args) => args.run(),
        Command::Play(args) => args.run(),
        Command::Match(args) => args.run(),
        Command::Tournament(args) => args.run(),
        Command::Tune(args) => args.run(),
        Command::Selfplay(args) => args.run(),
        Command::Label(args) => args.run(),
        Command::Merge(args) => args.run(),
        Command::Train(args) => args.run(),
        Command::Validate(args) => args.run(),
        Command::Serve(args) => args.run(),
        Command::Engine(args) => args.run(),
        Command::Analyse(args) => args.run(),
        Command::Solve(args) => args.run(),
        Command::Replay(args) => args.run(),
    }
}
