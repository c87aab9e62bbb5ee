//! The `yolah` command: play, watch, analyse and measure games of Yolah.
//!
//! Each command lives in `commands/NAME.rs` (its arguments and its `run`);
//! this file only names them and prints what they return.
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod args;
mod commands;
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

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the game tree DEPTH plies deep (a finished game is
    /// one leaf; a side with no move passes).
    Perft(perft::PerftArgs),
    /// Play uniformly random games from the start and count the results.
    RandomGames(random_games::RandomGamesArgs),
    /// Play in the terminal against a computer player, or watch two play.
    Play(play::PlayArgs),
    /// Play games between two players with alternating colours and report
    /// the result and Elo difference (A's point of view).
    Match(r#match::MatchArgs),
    /// Round-robin tournament with Elo ratings, kept in a resumable JSONL file.
    Tournament(tournament::TournamentArgs),
    /// Tune the alpha-beta weights with a genetic algorithm.
    Tune(tune::TuneArgs),
    /// Play games with a player against itself and write its positions,
    /// search scores and results for training.
    Selfplay(selfplay::SelfplayArgs),
    /// Join the shards of a run played with --shard (or partial files of
    /// one tournament) into what one run gives: tournament JSONL files,
    /// self-play training files, or random-games --json outputs.
    Merge(merge::MergeArgs),
    /// Train the evaluation network on self-play positions.
    Train(train::TrainArgs),
    /// Serve the web page and WebSocket games (people and computers), kept in
    /// a database so that games survive a restart.
    Serve(serve::ServeArgs),
    /// Speak the engine protocol (docs/engine-protocol.md) on standard input
    /// and output, with one of our players, so that other programs can play it.
    Engine(engine::EngineArgs),
    /// Search a position with a player and show what it finds.
    Analyse(analyse::AnalyseArgs),
    /// Solve a position exactly: the final margin with best play on both
    /// sides (the side to move's points minus the opponent's) and a line
    /// that reaches it. With --bench, check the solver against plain
    /// alpha-beta on endgames taken from random games instead.
    Solve(solve::SolveArgs),
    /// Check a game move by move and show how it ended. FILE is a JSON record
    /// ({"moves": [...]}) or a text list of moves like `d5:b7 e5:c7`.
    Replay(replay::ReplayArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(out) => match std::io::stdout().lock().write_all(out.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            // A reader that stopped early (`| head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("yolah: error: cannot write the output: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("yolah: error: {e:#}");
            ExitCode::FAILURE
        }
    }
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
        Command::Merge(args) => args.run(),
        Command::Train(args) => args.run(),
        Command::Serve(args) => args.run(),
        Command::Engine(args) => args.run(),
        Command::Analyse(args) => args.run(),
        Command::Solve(args) => args.run(),
        Command::Replay(args) => args.run(),
    }
}
