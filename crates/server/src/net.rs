//! Accepting TCP connections within bounds: a cap in all and per client
//! address (a connection over either is closed at once), below what the
//! process may open (the descriptor limit is raised at start, and the cap
//! lowered to fit it), `TCP_NODELAY` (a small reply is not held back waiting
//! for the client's delayed ACK), and HTTP/1 served by hyper with a deadline
//! on the request head, so a client that connects and sends nothing, or
//! trickles a header byte by byte, is dropped; and a deadline on every
//! write, so a client that stops reading (pipelined requests whose answers
//! it never reads, a WebSocket it never drains) is dropped too.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;

/// Descriptors the process needs besides its connections: standard streams,
/// the listener, the runtime's, the database's files.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// Raises the soft limit on open files to the hard limit, and returns the
/// limit now in force (`None` where there is no such limit to read).
pub fn raise_descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `limit` is a valid, writable rlimit for the call to fill.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            // SAFETY: `raised` is a valid rlimit; failure leaves the old one.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                limit = raised;
            }
        }
        #[allow(clippy::unnecessary_cast)] // rlim_t is u64 on Linux, not everywhere
        Some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// An I/O stream whose writes may not stall: a write (or flush) that makes
/// no progress for `limit` fails with `TimedOut`, and the connection ends.
pub struct StallLimit<T> {
    inner: T,
    limit: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> StallLimit<T> {
    /// `inner`, whose writes may stall for `limit` at most.
    pub fn new(inner: T, limit: Duration) -> StallLimit<T> {
        StallLimit {
            inner,
            limit,
            stalled: None,
        }
    }

    /// `poll` (a write) unless it has been pending for too long.
    fn guard<R>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(Pin<&mut T>, &mut Context<'_>) -> Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>>
    where
        T: Unpin,
    {
        match poll(Pin::new(&mut self.inner), cx) {
            Poll::Ready(r) => {
                self.stalled = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let limit = self.limit;
                let timer = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client does not read what it is sent",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for StallLimit<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallLimit<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().guard(cx, |t, cx| t.poll_write(cx, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().guard(cx, |t, cx| t.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().guard(cx, |t, cx| t.poll_shutdown(cx))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .guard(cx, |t, cx| t.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// The client address that every per-address bound counts, for a peer at
/// `ip`: an IPv4 address as it is (also when an IPv6 listener sees it as
/// `::ffff:a.b.c.d`), and an IPv6 address's /64 network, the block one
/// subscriber is given (else one machine would have 2^64 addresses, each
/// with its own connections, games and challenges).
pub fn client(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
    }
}

/// Counts open connections, in all and per address.
#[derive(Default)]
pub struct Counter {
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
    max: usize,
    max_per_addr: usize,
}

/// One admitted connection; dropping it frees its place. A WebSocket keeps
/// its connection's guard for as long as it is open.
pub struct Guard {
    counter: Arc<Counter>,
    addr: IpAddr,
}

impl Counter {
    /// A counter admitting `max` connections, `max_per_addr` from one address.
    pub fn new(max: usize, max_per_addr: usize) -> Arc<Counter> {
        Arc::new(Counter {
            open: Mutex::default(),
            max,
            max_per_addr,
        })
    }

    /// A place for a connection from `addr`, if there is one.
    pub fn admit(self: &Arc<Counter>, addr: IpAddr) -> Option<Guard> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let (total, per_addr) = &mut *open;
        let mine = per_addr.entry(addr).or_insert(0);
        if *total >= self.max || *mine >= self.max_per_addr {
            if *mine == 0 {
                per_addr.remove(&addr);
            }
            return None;
        }
        *total += 1;
        *mine += 1;
        Some(Guard {
            counter: Arc::clone(self),
            addr,
        })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).0
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let mut open = self
            .counter
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (total, per_addr) = &mut *open;
        *total -= 1;
        if let Some(n) = per_addr.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                per_addr.remove(&self.addr);
            }
        }
    }
}

/// The peer of a request, and its connection's place.
#[derive(Clone)]
pub struct Peer {
    /// The client's address.
    pub addr: SocketAddr,
    /// Held for as long as anything serves this connection.
    pub _guard: Arc<Guard>,
}

/// How connections are served.
pub struct Timeouts {
    /// Time to send a request's head.
    pub header: Duration,
    /// Time a write may make no progress.
    pub write: Duration,
    /// Time open exchanges get to end at shutdown.
    pub grace: Duration,
}

/// Accepts connections on `listener` and serves `router` on them until
/// `shutdown` says so; then stops accepting, lets requests in progress end
/// and waits for every connection to close (for at most `timeouts.grace`).
pub async fn accept_loop(
    listener: TcpListener,
    router: axum::Router,
    counter: Arc<Counter>,
    timeouts: Timeouts,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let grace = timeouts.grace;
    use hyper_util::rt::{TokioIo, TokioTimer};
    use tower::ServiceExt;
    loop {
        let (stream, addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors, say: wait a little rather
                    // than spin, and go on.
                    eprintln!("yolah serve: cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = shutdown.changed() => break,
        };
        let Some(guard) = counter.admit(client(addr.ip())) else {
            // Over a cap: closed at once, before any byte is read.
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let peer = Peer {
            addr,
            _guard: Arc::new(guard),
        };
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
            request.extensions_mut().insert(peer.clone());
            router.clone().oneshot(request)
        });
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(timeouts.header)
            .max_buf_size(64 << 10)
            .serve_connection(
                TokioIo::new(StallLimit::new(stream, timeouts.write)),
                service,
            )
            .with_upgrades();
        let mut shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = shutdown.changed() => {}
            }
            // Let a request in progress finish; take no new one.
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(grace, connection).await;
        });
    }
    drop(listener);
    // Until every connection (WebSockets included) has ended, or `grace`.
    let deadline = tokio::time::Instant::now() + grace;
    while counter.open() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_hold_in_all_and_per_address() {
        let c = Counter::new(3, 2);
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "127.0.0.2".parse().unwrap();
        let a1 = c.admit(a).unwrap();
        let _a2 = c.admit(a).unwrap();
        assert!(c.admit(a).is_none(), "two per address");
        let _b1 = c.admit(b).unwrap();
        assert!(c.admit(b).is_none(), "three in all");
        drop(a1);
        let _b2 = c.admit(b).unwrap();
        assert_eq!(c.open(), 3);
    }

    #[test]
    fn a_client_is_an_ipv4_address_or_an_ipv6_slash_64() {
        let client = |s: &str| client(s.parse().unwrap()).to_string();
        assert_eq!(client("192.0.2.7"), "192.0.2.7");
        assert_eq!(client("::ffff:192.0.2.7"), "192.0.2.7");
        assert_eq!(client("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::");
        assert_eq!(client("2001:db8:1:2::1"), client("2001:db8:1:2:ffff::9"));
        assert_ne!(client("2001:db8:1:2::1"), client("2001:db8:1:3::1"));
        assert_eq!(client("::1"), "::");
    }
}
