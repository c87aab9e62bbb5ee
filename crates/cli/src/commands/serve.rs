//! `yolah serve`: the web page and WebSocket games, kept in a database so
//! that games survive a restart.

use crate::args::{parse_duration_arg, positive_number, whole};
use anyhow::{Context, Result};
use clap::Args;
use yolah_lab::MAX_RUN_THREADS;
use yolah_server::Limits;

/// The bounds `yolah serve --help` shows as defaults. The thread counts,
/// which depend on the machine, have none there (`None` is one per core).
const DEFAULTS: Limits = Limits::with_threads(1, 1);

/// What `yolah serve` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Serve the web page and WebSocket games (people and computers), kept in \
    a database so that games survive a restart";

/// `yolah serve`'s settings: where, what, and every bound (see docs/protocol.md).
#[derive(Args)]
#[command(about = ABOUT)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    addr: std::net::IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080, value_parser = whole::<u16>(0, u16::MAX.into()), allow_negative_numbers = true)]
    port: u16,
    /// Computer players the page offers, weakest first (default: six
    /// levels, from Beginner, random, to Strongest, nn:time=2s).
    #[arg(long, num_args = 1..)]
    players: Vec<String>,
    /// Time controls a game may have, as minutes+seconds of increment
    /// (besides none; default: 1+0 3+2 5+3 15+10).
    #[arg(long, num_args = 1.., value_parser = parse_time_control)]
    clocks: Vec<yolah_server::TimeControl>,
    /// The player that analyses positions on the analysis board.
    #[arg(long, default_value = yolah_server::DEFAULT_ANALYSIS)]
    analysis: String,
    /// The engine's time on one analysed position.
    #[arg(long, default_value = "1s", value_parser = parse_duration_arg)]
    analysis_time: std::time::Duration,
    /// The database of games (SQLite), created if missing; `:memory:` keeps
    /// nothing after the server stops.
    #[arg(long, default_value = "yolah-games.db")]
    db: String,
    /// Another origin whose pages may open game connections, such as
    /// https://example.com (the server's own always may).
    #[arg(long, num_args = 1.., value_parser = parse_origin)]
    allow_origin: Vec<String>,
    /// A name the server answers to, such as yolah.example.org (requests
    /// for other names are refused; its IP addresses and localhost are
    /// always answered).
    #[arg(long, num_args = 1..)]
    public_host: Vec<String>,
    /// Games held in memory at once (in play, or finished and retained).
    #[arg(long, default_value_t = DEFAULTS.max_games as u64, value_parser = whole::<u64>(1, 1_000_000), allow_negative_numbers = true)]
    max_games: u64,
    /// Unfinished games one client address may hold.
    #[arg(long, default_value_t = DEFAULTS.max_games_per_addr as u64, value_parser = whole::<u64>(1, 1_000_000), allow_negative_numbers = true)]
    max_games_per_addr: u64,
    /// Games one client address may start in 24 hours (counted in the
    /// database, so across restarts): what it can make the server store.
    #[arg(long, default_value_t = DEFAULTS.max_daily_games_per_addr as u64, value_parser = whole::<u64>(1, 1_000_000_000), allow_negative_numbers = true)]
    max_daily_games_per_addr: u64,
    /// Open connections in all.
    #[arg(long, default_value_t = DEFAULTS.max_connections as u64, value_parser = whole::<u64>(1, 1_000_000), allow_negative_numbers = true)]
    max_connections: u64,
    /// Open connections from one client address.
    #[arg(long, default_value_t = DEFAULTS.max_connections_per_addr as u64, value_parser = whole::<u64>(1, 1_000_000), allow_negative_numbers = true)]
    max_connections_per_addr: u64,
    /// Watchers of one game.
    #[arg(long, default_value_t = DEFAULTS.max_watchers as u64, value_parser = whole::<u64>(0, 1_000_000), allow_negative_numbers = true)]
    max_watchers: u64,
    /// Computer searches running at once (default: one per core).
    #[arg(long, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    search_threads: Option<u16>,
    /// Threads each computer search takes when its spec does not say
    /// threads= (default: every core).
    #[arg(long, value_parser = whole::<u16>(1, yolah_players::MAX_THREADS as u64), allow_negative_numbers = true)]
    threads_per_search: Option<u16>,
    /// How long finished or abandoned games stay in memory (they stay in the
    /// database), such as 600s.
    #[arg(long, default_value = "600s", value_parser = parse_duration_arg)]
    retention: std::time::Duration,
    /// A WebSocket silent this long (not even answering pings) is closed.
    #[arg(long, default_value = "60s", value_parser = parse_duration_arg)]
    idle_timeout: std::time::Duration,
    /// Time a client has to send a request's head, and an open connection
    /// may wait for its next request.
    #[arg(long, default_value = "10s", value_parser = parse_duration_arg)]
    header_timeout: std::time::Duration,
    /// Time a write to a client may make no progress (the client does not
    /// read) before its connection is dropped.
    #[arg(long, default_value = "10s", value_parser = parse_duration_arg)]
    write_timeout: std::time::Duration,
    /// Messages queued to one connection before a client that does not read
    /// is disconnected.
    #[arg(long, default_value_t = DEFAULTS.send_queue as u64, value_parser = whole::<u64>(1, 100_000), allow_negative_numbers = true)]
    send_queue: u64,
    /// Largest WebSocket message or frame a client may send, in bytes.
    #[arg(long, default_value_t = DEFAULTS.max_message_bytes as u64, value_parser = whole::<u64>(256, 1_048_576), allow_negative_numbers = true)]
    max_message_bytes: u64,
    /// Bytes buffered for writing to one WebSocket before it is dropped.
    #[arg(long, default_value_t = DEFAULTS.max_write_buffer as u64, value_parser = whole::<u64>(4_096, 1_073_741_824), allow_negative_numbers = true)]
    max_write_buffer: u64,
    /// Analyses queued or running in all (one per connection at most).
    #[arg(long, default_value_t = DEFAULTS.max_analyses as u64, value_parser = whole::<u64>(1, 100_000), allow_negative_numbers = true)]
    max_analyses: u64,
    /// Open challenges in the lobby in all.
    #[arg(long, default_value_t = DEFAULTS.max_seeks as u64, value_parser = whole::<u64>(0, 1_000_000), allow_negative_numbers = true)]
    max_seeks: u64,
    /// Open challenges from one client address.
    #[arg(long, default_value_t = DEFAULTS.max_seeks_per_addr as u64, value_parser = whole::<u64>(0, 1_000_000), allow_negative_numbers = true)]
    max_seeks_per_addr: u64,
    /// Messages per second one connection may send on average.
    #[arg(long, default_value_t = DEFAULTS.messages_per_second, value_parser = positive_number, allow_negative_numbers = true)]
    messages_per_second: f64,
    /// Messages one connection may send in a burst.
    #[arg(long, default_value_t = DEFAULTS.message_burst, value_parser = positive_number, allow_negative_numbers = true)]
    message_burst: f64,
}

/// A time control as `--clocks` takes it (`3+2`).
fn parse_time_control(text: &str) -> Result<yolah_server::TimeControl, String> {
    yolah_server::TimeControl::parse(text)
}

/// An origin as browsers send it: `http://` or `https://`, a host, an
/// optional port, and no path (a trailing `/` is dropped). Anything else
/// could never match a browser's `Origin` header, so it is refused rather
/// than silently allowing nothing.
fn parse_origin(text: &str) -> Result<String, String> {
    let origin = text.strip_suffix('/').unwrap_or(text);
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))
        .ok_or_else(|| format!("{text:?} is not an origin: it must start with http:// or https:// (such as https://example.com)"))?;
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !h.contains('[') || h.ends_with(']') => (h, Some(p)),
        _ => (rest, None),
    };
    // A name or IPv4 address, or an IPv6 one in brackets.
    let host_ok = if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        !v6.is_empty()
            && v6
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'))
    } else {
        !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
    };
    let port_ok = port.is_none_or(|p| p.parse::<u16>().is_ok_and(|p| p > 0));
    if !host_ok || !port_ok {
        return Err(format!(
            "{text:?} is not an origin: a host and an optional port, no path (such as https://example.com or http://localhost:3000)"
        ));
    }
    Ok(origin.to_string())
}

impl ServeArgs {
    /// Serves until a signal stops the server.
    pub fn run(self) -> Result<String> {
        let players = if self.players.is_empty() {
            yolah_server::default_players()
        } else {
            self.players.clone()
        };
        for p in players.iter().chain([&self.analysis]) {
            yolah_players::from_spec(p)?;
        }
        let limits = self.limits();
        let (addr, port) = (self.addr, self.port);
        let defaults = yolah_server::Config::default();
        let config = yolah_server::Config {
            players,
            clocks: if self.clocks.is_empty() {
                defaults.clocks
            } else {
                self.clocks
            },
            analysis: self.analysis,
            db: self.db,
            allowed_origins: self.allow_origin,
            public_hosts: self.public_host,
            limits,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        let db = config.db.clone();
        runtime.block_on(async {
            // The port first, so that a port in use leaves no database file
            // behind; then the database, before anything is announced, so
            // that nothing is announced that cannot be served.
            let listener = tokio::net::TcpListener::bind((addr, port))
                .await
                .with_context(|| format!("cannot listen on {addr}:{port}"))?;
            let server = yolah_server::Server::open(config)?;
            let local = listener.local_addr()?;
            // Signals are caught before the address is announced: whoever
            // read it may stop the server at once, and cleanly.
            let shutdown = yolah_server::shutdown_signal();
            eprintln!("yolah: serving http://{local}/ (games in {db}; Ctrl-C to stop)");
            server.serve(listener, shutdown).await?;
            Ok(String::new())
        })
    }

    /// The server's bounds, as given or by default.
    fn limits(&self) -> Limits {
        let defaults = Limits::default();
        Limits {
            max_games: self.max_games as usize,
            max_games_per_addr: self.max_games_per_addr as usize,
            max_daily_games_per_addr: self.max_daily_games_per_addr as usize,
            max_connections: self.max_connections as usize,
            max_connections_per_addr: self.max_connections_per_addr as usize,
            max_watchers: self.max_watchers as usize,
            search_threads: self
                .search_threads
                .map_or(defaults.search_threads, usize::from),
            threads_per_search: self
                .threads_per_search
                .map_or(defaults.threads_per_search, usize::from),
            retention: self.retention,
            idle_timeout: self.idle_timeout,
            ping_interval: defaults.ping_interval.min(self.idle_timeout / 3),
            header_timeout: self.header_timeout,
            write_timeout: self.write_timeout,
            send_queue: self.send_queue as usize,
            max_message_bytes: self.max_message_bytes as usize,
            max_write_buffer: self.max_write_buffer as usize,
            messages_per_second: self.messages_per_second,
            message_burst: self.message_burst,
            max_analyses: self.max_analyses as usize,
            analysis_time: self.analysis_time,
            max_seeks: self.max_seeks as usize,
            max_seeks_per_addr: self.max_seeks_per_addr as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_origin, ServeArgs};
    use yolah_server::Limits;

    /// The defaults `--help` shows (some written as text, such as "600s")
    /// are the server's own.
    #[test]
    fn the_flags_defaults_are_the_servers() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            serve: ServeArgs,
        }
        let args = <Cli as clap::Parser>::parse_from(["serve"]).serve;
        assert_eq!(args.limits(), Limits::default());
    }

    #[test]
    fn origins_are_what_browsers_send() {
        for (text, origin) in [
            ("https://example.com", "https://example.com"),
            ("https://example.com/", "https://example.com"),
            ("http://localhost:3000", "http://localhost:3000"),
            ("http://[::1]:8080", "http://[::1]:8080"),
            ("http://[::1]", "http://[::1]"),
        ] {
            assert_eq!(parse_origin(text).as_deref(), Ok(origin), "{text}");
        }
        for text in [
            "notaurl",
            "example.com",
            "ftp://example.com",
            "https://",
            "https://example.com/page",
            "https://example.com:abc",
            "https://example.com:0",
            "https://exa mple.com",
        ] {
            assert!(parse_origin(text).is_err(), "{text}");
        }
    }
}
