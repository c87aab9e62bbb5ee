//! # yolah-server
//!
//! `yolah serve`: a web page and a WebSocket game server, on top of `yolah`
//! (the rules) and `yolah-players` (the computer opponents).
//!
//! The page (`page.html`, compiled into the binary) talks JSON over `/ws`;
//! the hub owns the games in memory and checks every message; the store
//! (SQLite) keeps every game and move, so games outlive the process; a fixed
//! pool of threads runs the computer players' searches. Every resource a
//! client can make the server hold is bounded by [`Limits`].
//!
//! Routes (`routes.rs`): `/` the page, with `/page.js`, `/favicon.svg` and
//! `/favicon.ico`; `/ws` the game protocol (`docs/protocol.md`); `POST
//! /name` the player's name cookie; `/live?offset=N&limit=M` the games being
//! played, newest first; `/record?key=KEY` a game's JSON record; `/games`
//! the archive of finished games (JSON, newest first, `?before=ID&limit=N`),
//! `/games/ID` a finished game's record, `/games/ID/history` its positions
//! for the page's replay; `/stats` the server's counters.
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod archive;
mod clock;
mod host;
mod hub;
mod limits;
mod names;
mod net;
mod page;
mod protocol;
mod rating;
mod routes;
mod search;
mod store;
mod ws;

pub use clock::TimeControl;
pub use limits::Limits;
pub use store::{LockError, StoreError};

use hub::{ConnId, Hub, Outbox};
use protocol::ServerMessage;
use search::{Job, Pool};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use ws::{Handle, Outgoing};

/// The computer levels a page may choose from, unless the server is told
/// other players: a name for people and the spec it plays, weakest first,
/// our strongest player (`nn`) at the top.
pub const DEFAULT_LEVELS: [(&str, &str); 6] = [
    ("Beginner", "random"),
    ("Casual", "mc:time=500ms"),
    ("Club", "mcts:time=500ms"),
    ("Strong", "alphabeta:time=500ms"),
    ("Expert", "alphabeta:time=2s"),
    ("Strongest", "nn:time=2s"),
];

/// The player that analyses positions, unless the server is told another
/// (its budget is `Limits::analysis_time`).
pub const DEFAULT_ANALYSIS: &str = "nn";

/// The specs of [`DEFAULT_LEVELS`].
pub fn default_players() -> Vec<String> {
    DEFAULT_LEVELS
        .iter()
        .map(|(_, spec)| spec.to_string())
        .collect()
}

/// The levels of `players` (weakest first): a spec of [`DEFAULT_LEVELS`]
/// keeps its name; any other is `Level N`, by its place in the list.
pub(crate) fn levels(players: &[String]) -> Vec<protocol::Level> {
    players
        .iter()
        .enumerate()
        .map(|(i, spec)| protocol::Level {
            name: DEFAULT_LEVELS
                .iter()
                .find(|(_, s)| s == spec)
                .map_or_else(|| format!("Level {}", i + 1), |(name, _)| name.to_string()),
            spec: spec.clone(),
        })
        .collect()
}

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The computer players offered, weakest first.
    pub players: Vec<String>,
    /// The time controls a game may have (besides none).
    pub clocks: Vec<TimeControl>,
    /// The player that analyses positions.
    pub analysis: String,
    /// The database file, or `:memory:`.
    pub db: String,
    /// Origins other than the server's own that may open `/ws`, such as
    /// `https://example.com`.
    pub allowed_origins: Vec<String>,
    /// Names the server answers to besides its addresses and `localhost`
    /// (any other `Host` is refused), such as `yolah.example.org`.
    pub public_hosts: Vec<String>,
    /// The bounds.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            players: default_players(),
            clocks: clock::DEFAULT_CLOCKS
                .iter()
                .map(|c| TimeControl::parse(c).expect("the default clocks read"))
                .collect(),
            analysis: DEFAULT_ANALYSIS.to_string(),
            db: ":memory:".into(),
            allowed_origins: Vec::new(),
            public_hosts: Vec::new(),
            limits: Limits::default(),
        }
    }
}

/// What every connection and search thread shares.
pub(crate) struct Shared {
    hub: Mutex<Hub>,
    conns: Mutex<HashMap<ConnId, Handle>>,
    next_conn: AtomicU64,
    pool: Mutex<Option<Pool>>,
    limits: Limits,
    allowed_origins: Vec<String>,
    hosts: host::Hosts,
    shutdown: tokio::sync::watch::Sender<bool>,
    counter: Arc<net::Counter>,
    /// Protocol messages queued to clients since the start.
    messages_sent: AtomicU64,
    /// Woken when the hub's next wake-up moves earlier.
    rearm: tokio::sync::Notify,
    /// The archive's connections to the database.
    reader: Arc<store::Reader>,
    /// Signs and checks the name cookies.
    signer: names::Signer,
}

impl Shared {
    /// The hub. A panic while it was held cannot have left a half-made move
    /// (moves are stored, then applied), so a poisoned lock is still used.
    fn hub(&self) -> MutexGuard<'_, Hub> {
        self.hub.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn conns(&self) -> MutexGuard<'_, HashMap<ConnId, Handle>> {
        self.conns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `message` for `conn`; a connection whose queue is full does
    /// not read, and is told to go.
    fn send(&self, conn: ConnId, message: ServerMessage) {
        let mut conns = self.conns();
        let full = match conns.get(&conn) {
            Some(h) => {
                self.messages_sent.fetch_add(1, Ordering::Relaxed);
                h.tx.try_send(Outgoing::Message(message)).is_err()
            }
            None => false,
        };
        if full {
            if let Some(h) = conns.remove(&conn) {
                h.kill.notify_one();
            }
        }
    }

    /// Delivers an outbox: messages to their connections, searches to the
    /// pool.
    fn dispatch(&self, out: Outbox) {
        if out.rearm {
            self.rearm.notify_one();
        }
        for (conn, message) in out.messages {
            self.send(conn, message);
        }
        if out.jobs.is_empty() {
            return;
        }
        let pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        match pool.as_ref() {
            Some(pool) => out.jobs.into_iter().for_each(|job| pool.submit(job)),
            // Shutting down: nobody will search.
            None => out.jobs.iter().for_each(|job| job.stop.request()),
        }
    }
}

/// An unguessable key: 128 bits from the operating system's CSPRNG, in hex.
pub fn random_key() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system provides random bytes");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Serves on `listener` until `shutdown` completes: [`Server::open`], then
/// [`Server::serve`].
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), StoreError> {
    Server::open(config)?.serve(listener, shutdown).await
}

/// A server whose database is open, ready to serve.
pub struct Server {
    config: Config,
    store: store::Store,
    signer: names::Signer,
}

impl Server {
    /// Opens the database, and raises the process's limit on open files
    /// (lowering the connection cap to fit under it if it cannot be raised
    /// far enough: a server out of descriptors can accept nobody, not even
    /// to refuse them).
    pub fn open(mut config: Config) -> Result<Server, StoreError> {
        let mut store = store::Store::open(&config.db)?;
        let signer = names::Signer::new(store.secret("name cookies", || {
            let mut key = vec![0u8; 32];
            getrandom::fill(&mut key).expect("the operating system provides random bytes");
            key
        })?);
        if let Some(files) = net::raise_descriptor_limit() {
            let room = files.saturating_sub(net::RESERVED_DESCRIPTORS).max(1) as usize;
            if config.limits.max_connections > room {
                eprintln!(
                    "yolah serve: the process may open {files} files: at most {room} \
                     connections (not {}); raise `ulimit -n` for more",
                    config.limits.max_connections
                );
                config.limits.max_connections = room;
            }
        }
        Ok(Server {
            config,
            store,
            signer,
        })
    }

    /// The bounds in force (the connection cap may be lower than asked).
    pub fn limits(&self) -> &Limits {
        &self.config.limits
    }

    /// Serves on `listener` until `shutdown` completes: then stops
    /// accepting, closes every WebSocket with code 1001 after what was
    /// queued for it, and waits (a few seconds at most) for open exchanges
    /// to end.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> Result<(), StoreError> {
        let Server {
            config,
            store,
            signer,
        } = self;
        run(listener, config, store, signer, shutdown).await
    }
}

/// Read-only connections the archive's requests share.
const ARCHIVE_CONNECTIONS: usize = 2;

async fn run(
    listener: TcpListener,
    config: Config,
    store: store::Store,
    signer: names::Signer,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), StoreError> {
    let limits = config.limits.clone();
    let (shutdown_tx, shutdown_rx) = tokio::sync::watch::channel(false);
    let shared = shared_state(&config, store, signer, shutdown_tx)?;
    start_search_pool(&shared);
    let timers = [
        tokio::spawn(sweep_every(Arc::clone(&shared))),
        tokio::spawn(lobby_every_second(Arc::clone(&shared))),
        tokio::spawn(keep_appointments(Arc::clone(&shared))),
    ];
    let accept = tokio::spawn(net::accept_loop(
        listener,
        routes::router(Arc::clone(&shared)),
        Arc::clone(&shared.counter),
        net::Timeouts {
            header: limits.header_timeout,
            write: limits.write_timeout,
            grace: Duration::from_secs(5),
        },
        shutdown_rx,
    ));
    shutdown.await;
    // Stop accepting and close every WebSocket (each sends its Close).
    let _ = shared.shutdown.send(true);
    let _ = accept.await;
    let deadline = Instant::now() + Duration::from_secs(5);
    while !shared.conns().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for timer in timers {
        timer.abort();
    }
    // Stop the searches and the workers.
    let pool = shared
        .pool
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    shared.hub().stop_searches();
    let _ = tokio::task::spawn_blocking(move || drop(pool)).await;
    Ok(())
}

/// Everything the connections share: the hub around the database, the
/// connection table and counters, the archive's readers.
fn shared_state(
    config: &Config,
    store: store::Store,
    signer: names::Signer,
    shutdown: tokio::sync::watch::Sender<bool>,
) -> Result<Arc<Shared>, StoreError> {
    let limits = &config.limits;
    let reader = Arc::new(store.reader(ARCHIVE_CONNECTIONS)?);
    Ok(Arc::new(Shared {
        hub: Mutex::new(Hub::new(
            hub::Offer {
                levels: levels(&config.players),
                clocks: config.clocks.clone(),
                analysis: config.analysis.clone(),
                analysis_time: limits.analysis_time,
            },
            Box::new(random_key),
            store,
            limits.clone(),
        )),
        conns: Mutex::new(HashMap::new()),
        next_conn: AtomicU64::new(1),
        pool: Mutex::new(None),
        limits: limits.clone(),
        allowed_origins: config.allowed_origins.clone(),
        hosts: host::Hosts::new(&config.public_hosts),
        shutdown,
        counter: net::Counter::new(limits.max_connections, limits.max_connections_per_addr),
        messages_sent: AtomicU64::new(0),
        rearm: tokio::sync::Notify::new(),
        reader,
        signer,
    }))
}

/// Starts the computer players' threads; each finished search goes back
/// to the hub (while the server lives: the pool holds it weakly).
fn start_search_pool(shared: &Arc<Shared>) {
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let on_done = Arc::new(move |job: &Job, outcome| {
        if let Some(shared) = weak.upgrade() {
            let out = shared.hub().finish_job(job, outcome);
            shared.dispatch(out);
        }
    });
    let threads = shared.limits.threads_per_search;
    let make = Arc::new(move |spec: &str| {
        search::make_player(&yolah_players::with_default_threads(spec, threads))
    });
    *shared.pool.lock().unwrap_or_else(PoisonError::into_inner) =
        Some(Pool::new(shared.limits.search_threads, make, on_done));
}

/// Retention: every few seconds, drops what has been kept long enough.
async fn sweep_every(shared: Arc<Shared>) {
    let every =
        (shared.limits.retention / 10).clamp(Duration::from_millis(100), Duration::from_secs(5));
    let mut tick = tokio::time::interval(every);
    loop {
        tick.tick().await;
        let out = shared.hub().sweep(Instant::now());
        shared.dispatch(out);
    }
}

/// The lobby: once a second, to those who listen, if it changed.
async fn lobby_every_second(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        let out = shared.hub().lobby_tick();
        shared.dispatch(out);
    }
}

/// The hub's own appointments (moves to save again, flags), each on time;
/// a new, earlier one re-arms the wait.
async fn keep_appointments(shared: Arc<Shared>) {
    loop {
        let next = shared.hub().next_wake();
        let rearmed = shared.rearm.notified();
        match next {
            Some(at) => tokio::select! {
                _ = tokio::time::sleep_until(at.into()) => {}
                _ = rearmed => continue,
            },
            None => {
                rearmed.await;
                continue;
            }
        }
        let out = shared.hub().wake(Instant::now());
        shared.dispatch(out);
    }
}

/// [`serve`] until SIGTERM or SIGINT (Ctrl-C).
pub async fn serve_until_signal(listener: TcpListener, config: Config) -> Result<(), StoreError> {
    Server::open(config)?.serve_until_signal(listener).await
}

impl Server {
    /// [`Server::serve`] until SIGTERM or SIGINT (Ctrl-C).
    pub async fn serve_until_signal(self, listener: TcpListener) -> Result<(), StoreError> {
        self.serve(listener, shutdown_signal()).await
    }
}

/// Completes at SIGTERM or SIGINT (Ctrl-C), and says so. The signals are
/// caught from the moment this is called, not from its first poll: a
/// caller that makes it before announcing the server loses no signal that
/// comes in between (which would otherwise end the process at once, before
/// a `:memory:` database's files are removed). Call it inside the runtime.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        )
    };
    async move {
        #[cfg(unix)]
        match signals {
            (Ok(mut term), Ok(mut interrupt)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = interrupt.recv() => {}
                }
            }
            _ => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        eprintln!("yolah serve: shutting down");
    }
}
