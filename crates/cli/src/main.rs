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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::{ContextKind, ContextValue, ErrorKind};
            let unknown = match (e.kind(), e.get(ContextKind::InvalidArg)) {
                (ErrorKind::UnknownArgument, Some(ContextValue::String(arg))) => Some(arg),
                _ => None,
            };
            // `--games=-1`: clap hands "-1" to the count's parser, which
            // finds the minus sign an invalid digit.
            if let Some((value, arg)) = negative_count(&e) {
                eprintln!(
                    "error: invalid value '{value}' for '{arg}': it cannot be negative\n\n\
                     For more information, try '--help'."
                );
                return ExitCode::from(2);
            }
            if let Some(unknown) = unknown {
                let args: Vec<String> = std::env::args_os()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect();
                if let Some((value, option)) = negative_value(&args, unknown) {
                    let option = option.map(|o| format!(" for '{o}'")).unwrap_or_default();
                    eprintln!(
                        "error: invalid value '{value}'{option}: it cannot be negative\n\n\
                         For more information, try '--help'."
                    );
                    return ExitCode::from(2);
                }
            }
            e.exit()
        }
    };
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

/// When clap's `unknown` argument is (the start of) a negative number in
/// `args` given to a numeric option (as in `--games -1`, which clap reads
/// as an unknown option and answers with a tip to write `-- -1` that would
/// not help), that number and the option; for a bare negative number, the
/// number alone when every positional of the command is numeric (`perft
/// -3`). `None` otherwise, and clap's message stands: for a file name such
/// as `merge -1` its tip is right.
fn negative_value(args: &[String], unknown: &str) -> Option<(String, Option<String>)> {
    use clap::builder::{Arg, ValueParser};
    let mut command = <Cli as clap::CommandFactory>::command();
    let sub = command.find_subcommand_mut(args.get(1)?)?;
    sub.build();
    let text = [
        ValueParser::string().type_id(),
        ValueParser::path_buf().type_id(),
        ValueParser::os_string().type_id(),
    ];
    let numeric = |arg: &Arg| !text.contains(&arg.get_value_parser().type_id());
    let option_of = |name: &str| {
        let long = name.strip_prefix("--")?;
        sub.get_arguments()
            .find(|arg| arg.get_long() == Some(long) && arg.get_action().takes_values())
    };
    (2..args.len())
        .filter(|&i| args[i].starts_with(unknown) && is_negative_number(&args[i]))
        .find_map(|i| match option_of(&args[i - 1]) {
            // Clap took this one (the option allows negative numbers).
            Some(arg) if arg.is_allow_negative_numbers_set() => None,
            Some(arg) => numeric(arg).then(|| (args[i].clone(), Some(args[i - 1].clone()))),
            None => sub
                .get_positionals()
                .all(numeric)
                .then(|| (args[i].clone(), None)),
        })
}

/// Whether `t` is a negative number (`-1`, `-2.5`; not `-inf` or `-x`).
fn is_negative_number(t: &str) -> bool {
    t.strip_prefix('-')
        .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()) && n.parse::<f64>().is_ok())
}

/// When clap's error `e` is an integer parser refusing a negative number
/// as an invalid digit (`--games=-1`, where the `=` keeps clap from
/// reading `-1` as an option), that number and the option's name. Every
/// such option here is unsigned (a count or a seed), so the number cannot
/// be negative; a signed one would take `-1` and fail only on `-2.5`.
fn negative_count(e: &clap::Error) -> Option<(String, String)> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    use std::error::Error;
    let string = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let parse_error = e.source()?.downcast_ref::<std::num::ParseIntError>()?;
    let value = string(ContextKind::InvalidValue)?;
    let invalid_digit = *parse_error.kind() == std::num::IntErrorKind::InvalidDigit;
    (e.kind() == ErrorKind::ValueValidation && is_negative_number(&value) && invalid_digit)
        .then(|| {
            // "--games <GAMES>": the name alone, as the other path says it.
            let arg = string(ContextKind::InvalidArg)?;
            let name = arg.split(' ').next().unwrap_or(&arg).to_owned();
            Some((value, name))
        })
        .flatten()
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
        Command::Serve(args) => args.run(),
        Command::Engine(args) => args.run(),
        Command::Analyse(args) => args.run(),
        Command::Solve(args) => args.run(),
        Command::Replay(args) => args.run(),
    }
}
