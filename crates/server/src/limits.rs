//! Every bound the server keeps, in one place: what a client, or all of
//! them together, can make it hold. `yolah serve --help` and
//! `docs/protocol.md` list the same defaults.

use std::time::Duration;

/// The server's bounds. [`Limits::default`] is what `yolah serve` uses
/// unless told otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Games held in memory at once (in play, or finished and retained).
    pub max_games: usize,
    /// Unfinished games one client address may have created and still hold.
    pub max_games_per_addr: usize,
    /// Games one client address may create in 24 hours (counted in the
    /// database, finished or not): what it can make the server store.
    pub max_daily_games_per_addr: usize,
    /// Open TCP connections in all.
    pub max_connections: usize,
    /// Open TCP connections from one client address.
    pub max_connections_per_addr: usize,
    /// Watchers of one game.
    pub max_watchers: usize,
    /// Computer searches running at once (the search threads).
    pub search_threads: usize,
    /// Threads each computer search takes, unless its spec says
    /// `threads=`: at most `search_threads` × this many threads search.
    pub threads_per_search: usize,
    /// Messages queued for one connection; a client that lets more pile up
    /// (it does not read) is disconnected.
    pub send_queue: usize,
    /// Largest WebSocket message or frame a client may send, in bytes.
    pub max_message_bytes: usize,
    /// Bytes the server buffers for writing to one WebSocket before the
    /// connection is dropped.
    pub max_write_buffer: usize,
    /// Time a client has to send a whole HTTP request head (and the time
    /// an open connection may wait for its next request).
    pub header_timeout: Duration,
    /// Time a write to a client may make no progress (it does not read)
    /// before its connection is dropped.
    pub write_timeout: Duration,
    /// How often the server pings a WebSocket client.
    pub ping_interval: Duration,
    /// A WebSocket that sends nothing (not even a pong) for this long is
    /// closed, and its seat freed.
    pub idle_timeout: Duration,
    /// How long a finished game, or an unfinished one nobody is seated at,
    /// stays in memory (it stays in the database).
    pub retention: Duration,
    /// Open challenges in the lobby in all.
    pub max_seeks: usize,
    /// Open challenges from one client address.
    pub max_seeks_per_addr: usize,
    /// Analyses queued or running in all (each connection has one at most).
    pub max_analyses: usize,
    /// The engine's time on one analysed position.
    pub analysis_time: Duration,
    /// Messages per second one connection may send on average.
    pub messages_per_second: f64,
    /// Messages one connection may send in a burst.
    pub message_burst: f64,
}

impl Limits {
    /// The default bounds with `search_threads` searches of
    /// `threads_per_search` threads each: [`Limits::default`] on a machine
    /// with that many cores. A constant, for what must not ask the system
    /// (`yolah serve`'s defaults are built on every start of the command,
    /// and asking for the cores reads a dozen files).
    pub const fn with_threads(search_threads: usize, threads_per_search: usize) -> Limits {
        Limits {
            max_games: 1_000,
            max_games_per_addr: 20,
            max_daily_games_per_addr: 500,
            max_connections: 4_096,
            max_connections_per_addr: 64,
            max_watchers: 100,
            search_threads,
            threads_per_search,
            send_queue: 64,
            max_message_bytes: 4_096,
            max_write_buffer: 256 << 10,
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            ping_interval: Duration::from_secs(20),
            idle_timeout: Duration::from_secs(60),
            retention: Duration::from_secs(600),
            max_seeks: 200,
            max_seeks_per_addr: 3,
            max_analyses: 16,
            analysis_time: Duration::from_secs(1),
            messages_per_second: 20.0,
            message_burst: 40.0,
        }
    }
}

impl Default for Limits {
    /// One search per core, each on every core unless its spec says how
    /// many.
    fn default() -> Limits {
        let cores = yolah_players::available_cores();
        Limits::with_threads(cores, cores)
    }
}
