//! The `yolah` command: play, watch, analyse and measure games of Yolah.
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod compete;
mod engine;
mod learn;
mod measure;
mod merge;
mod play;
mod rank;
mod solve;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use yolah::record::GameRecord;
use yolah::Position;
use yolah_lab::games::{Match, TimeControl};
use yolah_lab::shard::Shard;
use yolah_server::Limits;

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
    Perft {
        /// Plies to search.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=64))]
        depth: u32,
        #[command(flatten)]
        start: StartArgs,
        /// Worker threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: u16,
        /// List the leaves below each root move.
        #[arg(long)]
        divide: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Play uniformly random games from the start and count the results.
    RandomGames {
        /// Number of games.
        #[arg(long, default_value_t = 1_000_000)]
        games: u64,
        /// Seed: the same seed and games give the same counts on any number of threads.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Worker threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: u16,
        /// Play only shard K of N of the run (1-based, such as 2/8), for
        /// Slurm arrays or Kubernetes indexed jobs; `yolah merge` joins the
        /// shards into what one run gives.
        #[arg(long, value_name = "K/N")]
        shard: Option<Shard>,
        /// Print one JSON object (what `yolah merge` reads of a shard).
        #[arg(long)]
        json: bool,
    },
    /// Play in the terminal against a computer player, or watch two play.
    Play {
        /// Black: a player spec such as alphabeta:time=1s, or human.
        #[arg(long, default_value = "human")]
        black: String,
        /// White: a player spec, or human.
        #[arg(long, default_value = "alphabeta:time=1s")]
        white: String,
        /// Write the game as a JSON record (readable by `yolah replay`).
        #[arg(long)]
        save: Option<String>,
        #[command(flatten)]
        start: StartArgs,
    },
    /// Play games between two players with alternating colours and report
    /// the result and Elo difference (A's point of view).
    Match {
        /// Player A, such as mcts:time=100ms.
        spec_a: String,
        /// Player B.
        spec_b: String,
        /// Number of games (pairs share a random opening).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
        games: u64,
        /// Seed of the openings and of the players.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Games played at once.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: u16,
        /// Stop as soon as a sequential probability ratio test decides, as in
        /// elo0=0,elo1=10 (alpha and beta 0.05 unless given); --games is then
        /// the most games to play.
        #[arg(long)]
        sprt: Option<String>,
        /// A clock for both players: BASE+INCREMENT in seconds, such as
        /// 10+0.1; a move over the time left (plus 100 ms) loses on time.
        /// Without it each player searches with its own budget.
        #[arg(long)]
        tc: Option<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Round-robin tournament with Elo ratings, kept in a resumable JSONL file.
    Tournament {
        /// Player specs (two or more).
        #[arg(long, num_args = 2.., required = true)]
        players: Vec<String>,
        /// Games each pair plays (colours alternate; pairs share an opening).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        games_per_pair: u64,
        /// Games played at once.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: u16,
        /// The JSONL file of finished games; running again resumes it.
        #[arg(long)]
        out: String,
        /// Seed of openings and players.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The player whose rating is 0 (default: the first).
        #[arg(long)]
        anchor: Option<String>,
        /// A clock for both players of every game: BASE+INCREMENT in
        /// seconds, such as 10+0.1 (see match --tc).
        #[arg(long)]
        tc: Option<String>,
        /// Play only shard K of N of the run (1-based, such as 2/8), for
        /// Slurm arrays or Kubernetes indexed jobs; `yolah merge` joins the
        /// shards into what one run gives.
        #[arg(long, value_name = "K/N")]
        shard: Option<Shard>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Tune the alpha-beta weights with a genetic algorithm.
    Tune {
        /// Individuals per generation.
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(2..=10_000))]
        population: u64,
        /// Generations.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        generations: u32,
        /// Games per individual per generation, against the hand-set weights.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        games_per_eval: u64,
        /// Search depth in fitness games.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
        depth: u32,
        /// Seed of the whole run.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Games played at once.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: u16,
        /// Where the best weights go (JSON); the checkpoint is FILE.checkpoint.
        #[arg(long)]
        out: String,
        /// Continue from FILE.checkpoint.
        #[arg(long)]
        resume: bool,
    },
    /// Play games with a player against itself and write its positions,
    /// search scores and results for training.
    Selfplay {
        /// The player, such as alphabeta:depth=4.
        #[arg(long)]
        player: String,
        /// Games to play.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
        games: u64,
        /// Seed of the openings and players.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Games played at once.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: u16,
        /// The training file to write (format in crates/lab/src/selfplay.rs).
        #[arg(long)]
        out: String,
        /// Play only shard K of N of the run (1-based, such as 2/8), for
        /// Slurm arrays or Kubernetes indexed jobs; `yolah merge` joins the
        /// shards (a shard also writes OUT.shard.json, and is skipped when
        /// that says it is done) into what one run gives.
        #[arg(long, value_name = "K/N")]
        shard: Option<Shard>,
    },
    /// Join the shards of a run played with --shard (or partial files of
    /// one tournament) into what one run gives: tournament JSONL files,
    /// self-play training files, or random-games --json outputs.
    Merge {
        /// The shard files, in any order.
        #[arg(required = true)]
        files: Vec<String>,
        /// The merged file (tournaments and self-play); a tournament file
        /// already there keeps its games and gains the others.
        #[arg(long)]
        out: Option<String>,
        /// For tournaments: the player whose rating is 0 (default: the first).
        #[arg(long)]
        anchor: Option<String>,
        /// For tournaments: print the table even when games are missing
        /// (otherwise that is an error, after the merge is written).
        #[arg(long)]
        partial: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Train the evaluation network on self-play positions.
    Train {
        /// Training files from `yolah selfplay`.
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<String>,
        /// Where the network goes (net.bin format).
        #[arg(long)]
        out: String,
        /// Passes over the data.
        #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u64).range(1..=10_000))]
        epochs: u64,
        /// Seed of initialisation and shuffling.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Weight of the game result in the target; the rest is the search score.
        #[arg(long, default_value_t = 0.3)]
        lambda: f32,
        /// Show every position as it is, not in a random one of its eight
        /// symmetric images.
        #[arg(long)]
        no_symmetries: bool,
        /// Keep one sample of each position (up to symmetry): the first.
        #[arg(long)]
        dedup: bool,
        /// Width of the network's first layer: a multiple of 16 up to 128
        /// (the nets before gen2 have 64).
        #[arg(long, default_value_t = 128)]
        width: usize,
    },
    /// Serve the web page and WebSocket games (people and computers), kept in
    /// a database so that games survive a restart.
    Serve(ServeArgs),
    /// Speak the engine protocol (docs/engine-protocol.md) on standard input
    /// and output, with one of our players, so that other programs can play it.
    Engine {
        /// The player, such as nn:time=1s (the protocol's Player option
        /// changes it).
        #[arg(long, default_value = "alphabeta:time=1s")]
        player: String,
    },
    /// Search a position with a player and show what it finds.
    Analyse {
        #[command(flatten)]
        start: StartArgs,
        /// The player, such as alphabeta:depth=8.
        #[arg(long, default_value = "alphabeta:time=1s")]
        player: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Solve a position exactly: the final margin with best play on both
    /// sides (the side to move's points minus the opponent's) and a line
    /// that reaches it. With --bench, check the solver against plain
    /// alpha-beta on endgames taken from random games instead.
    Solve {
        #[command(flatten)]
        start: StartArgs,
        /// Give up after this long (default: never), like 10s.
        #[arg(long, value_parser = parse_duration_arg, conflicts_with = "bench")]
        time: Option<std::time::Duration>,
        /// Solve this many endgames both ways and compare.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000), conflicts_with_all = ["moves", "position"])]
        bench: Option<u64>,
        /// Seed of the bench's random games.
        #[arg(long, default_value_t = 1, requires = "bench")]
        seed: u64,
        /// The bench's endgames are at least this many plies before the end of their game.
        #[arg(long, default_value_t = 20, requires = "bench", value_parser = clap::value_parser!(u64).range(1..=120))]
        min_plies: u64,
        /// Plain alpha-beta's node limit in the bench: endgames it cannot
        /// solve within it are left out.
        #[arg(long, default_value_t = 5_000_000, requires = "bench", value_parser = clap::value_parser!(u64).range(1..))]
        plain_nodes: u64,
        /// Bench worker threads.
        #[arg(long, default_value_t = 1, requires = "bench", value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: u16,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Check a game move by move and show how it ended. FILE is a JSON record
    /// ({"moves": [...]}) or a text list of moves like `d5:b7 e5:c7`.
    Replay {
        /// The game file.
        file: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// `yolah serve`'s settings: where, what, and every bound (see docs/protocol.md).
#[derive(Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    addr: std::net::IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Computer players the page offers (default: a list from random to
    /// alphabeta:time=2s).
    #[arg(long, num_args = 1..)]
    players: Vec<String>,
    /// The database of games (SQLite), created if missing; `:memory:` keeps
    /// nothing after the server stops.
    #[arg(long, default_value = "yolah-games.db")]
    db: String,
    /// Another origin whose pages may open game connections, such as
    /// https://example.com (the server's own always may).
    #[arg(long, num_args = 1..)]
    allow_origin: Vec<String>,
    /// Games held in memory at once (in play, or finished and retained).
    #[arg(long, default_value_t = Limits::default().max_games as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_games: u64,
    /// Unfinished games one client address may hold.
    #[arg(long, default_value_t = Limits::default().max_games_per_addr as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_games_per_addr: u64,
    /// Open connections in all.
    #[arg(long, default_value_t = Limits::default().max_connections as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections: u64,
    /// Open connections from one client address.
    #[arg(long, default_value_t = Limits::default().max_connections_per_addr as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections_per_addr: u64,
    /// Watchers of one game.
    #[arg(long, default_value_t = Limits::default().max_watchers as u64, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    max_watchers: u64,
    /// Computer searches running at once (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    search_threads: Option<u16>,
    /// Threads each computer search takes when its spec does not say
    /// threads= (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads_per_search: Option<u16>,
    /// How long finished or abandoned games stay in memory (they stay in the
    /// database), such as 600s.
    #[arg(long, default_value = "600s", value_parser = parse_duration_arg)]
    retention: std::time::Duration,
    /// A WebSocket silent this long (not even answering pings) is closed.
    #[arg(long, default_value = "60s", value_parser = parse_duration_arg)]
    idle_timeout: std::time::Duration,
    /// Time a client has to send a request's head.
    #[arg(long, default_value = "10s", value_parser = parse_duration_arg)]
    header_timeout: std::time::Duration,
    /// Messages queued to one connection before a client that does not read
    /// is disconnected.
    #[arg(long, default_value_t = Limits::default().send_queue as u64, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    send_queue: u64,
    /// Largest WebSocket message or frame a client may send, in bytes.
    #[arg(long, default_value_t = Limits::default().max_message_bytes as u64, value_parser = clap::value_parser!(u64).range(256..=1_048_576))]
    max_message_bytes: u64,
    /// Bytes buffered for writing to one WebSocket before it is dropped.
    #[arg(long, default_value_t = Limits::default().max_write_buffer as u64, value_parser = clap::value_parser!(u64).range(4_096..=1_073_741_824))]
    max_write_buffer: u64,
    /// Messages per second one connection may send on average.
    #[arg(long, default_value_t = Limits::default().messages_per_second, value_parser = positive_number)]
    messages_per_second: f64,
    /// Messages one connection may send in a burst.
    #[arg(long, default_value_t = Limits::default().message_burst, value_parser = positive_number)]
    message_burst: f64,
}

fn positive_number(text: &str) -> std::result::Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 1.0)
        .ok_or_else(|| format!("{text:?} is not a number of at least 1"))
}

fn parse_duration_arg(text: &str) -> std::result::Result<std::time::Duration, String> {
    yolah_players::parse_duration(text)
        .ok_or_else(|| format!("{text:?} is not a duration like 500ms or 60s"))
}

/// Where a command starts: the usual start, a position, or moves from the start.
#[derive(Args)]
struct StartArgs {
    /// Moves played from the start, like "d5:b7 e5:c7".
    #[arg(long, conflicts_with = "position")]
    moves: Option<String>,
    /// A position in text form, like "w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0".
    #[arg(long)]
    position: Option<String>,
}

impl StartArgs {
    fn position(&self) -> Result<Position> {
        if let Some(text) = &self.position {
            return Ok(text.parse()?);
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
        Command::Perft {
            depth,
            start,
            threads,
            divide,
            json,
        } => measure::perft_command(&start.position()?, depth, threads.into(), divide, json),
        Command::RandomGames {
            games,
            seed,
            threads,
            shard,
            json,
        } => Ok(measure::random_games_command(
            games,
            seed,
            threads.into(),
            shard,
            json,
        )),
        Command::Replay { file, json } => measure::replay_command(&file, json),
        Command::Play {
            black,
            white,
            save,
            start,
        } => play::play_command(&black, &white, save.as_deref(), &start.position()?),
        Command::Match {
            spec_a,
            spec_b,
            games,
            seed,
            threads,
            sprt,
            tc,
            json,
        } => {
            let tc = tc
                .as_deref()
                .map(TimeControl::parse)
                .transpose()
                .context("--tc")?;
            let m = Match {
                a: &spec_a,
                b: &spec_b,
                games,
                seed,
                tc,
            };
            compete::match_command(&m, threads.into(), sprt.as_deref(), json)
        }
        Command::Tournament {
            players,
            games_per_pair,
            threads,
            out,
            seed,
            anchor,
            tc,
            shard,
            json,
        } => rank::tournament_command(
            yolah_lab::tournament::Settings {
                players,
                games_per_pair,
                seed,
                tc,
            },
            shard.unwrap_or(Shard::WHOLE),
            threads.into(),
            &out,
            anchor.as_deref(),
            json,
        ),
        Command::Tune {
            population,
            generations,
            games_per_eval,
            depth,
            seed,
            threads,
            out,
            resume,
        } => rank::tune_command(
            &yolah_lab::tune::TuneSettings {
                population: population as usize,
                generations,
                games_per_eval,
                seed,
                depth,
            },
            threads.into(),
            &out,
            resume,
        ),
        Command::Serve(args) => serve_command(args),
        Command::Engine { player } => engine::engine_command(&player),
        Command::Selfplay {
            player,
            games,
            seed,
            threads,
            out,
            shard,
        } => learn::selfplay_command(&player, games, seed, threads.into(), shard, &out),
        Command::Merge {
            files,
            out,
            anchor,
            partial,
            json,
        } => merge::merge_command(&files, out.as_deref(), anchor.as_deref(), partial, json),
        Command::Train {
            data,
            out,
            epochs,
            seed,
            lambda,
            no_symmetries,
            dedup,
            width,
        } => learn::train_command(
            &data,
            &out,
            learn::TrainOptions {
                epochs: epochs as usize,
                seed,
                lambda,
                symmetries: !no_symmetries,
                dedup,
                width,
            },
        ),
        Command::Analyse {
            start,
            player,
            json,
        } => compete::analyse_command(&start.position()?, &player, json),
        Command::Solve {
            start,
            time,
            bench,
            seed,
            min_plies,
            plain_nodes,
            threads,
            json,
        } => match bench {
            None => solve::solve_command(&start.position()?, time, json),
            Some(positions) => solve::bench_command(
                &solve::BenchSettings {
                    positions: positions as usize,
                    seed,
                    min_plies: min_plies as usize,
                    plain_nodes,
                    threads: threads.into(),
                },
                json,
            ),
        },
    }
}

fn serve_command(args: ServeArgs) -> Result<String> {
    let players = if args.players.is_empty() {
        yolah_server::DEFAULT_PLAYERS
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        args.players
    };
    for p in &players {
        yolah_players::from_spec(p)?;
    }
    let defaults = Limits::default();
    let limits = Limits {
        max_games: args.max_games as usize,
        max_games_per_addr: args.max_games_per_addr as usize,
        max_connections: args.max_connections as usize,
        max_connections_per_addr: args.max_connections_per_addr as usize,
        max_watchers: args.max_watchers as usize,
        search_threads: args
            .search_threads
            .map_or(defaults.search_threads, usize::from),
        threads_per_search: args
            .threads_per_search
            .map_or(defaults.threads_per_search, usize::from),
        retention: args.retention,
        idle_timeout: args.idle_timeout,
        ping_interval: defaults.ping_interval.min(args.idle_timeout / 3),
        header_timeout: args.header_timeout,
        send_queue: args.send_queue as usize,
        max_message_bytes: args.max_message_bytes as usize,
        max_write_buffer: args.max_write_buffer as usize,
        messages_per_second: args.messages_per_second,
        message_burst: args.message_burst,
    };
    let config = yolah_server::Config {
        players,
        db: args.db,
        allowed_origins: args.allow_origin,
        limits,
    };
    let (addr, port) = (args.addr, args.port);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind((addr, port))
            .await
            .with_context(|| format!("cannot listen on {addr}:{port}"))?;
        let local = listener.local_addr()?;
        eprintln!(
            "yolah: serving http://{local}/ (games in {}; Ctrl-C to stop)",
            config.db
        );
        yolah_server::serve_until_signal(listener, config).await?;
        Ok(String::new())
    })
}
