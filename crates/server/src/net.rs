//! Accepting TCP connections within bounds: a cap in all and per client
//! address (a connection over either is closed at once), `TCP_NODELAY` (a
//! small reply is not held back waiting for the client's delayed ACK), and
//! HTTP/1 served by hyper with a deadline on the request head, so a client
//! that connects and sends nothing, or trickles a header byte by byte,
//! is dropped.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::net::TcpListener;

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

/// Accepts connections on `listener` and serves `router` on them until
/// `shutdown` says so; then stops accepting, lets requests in progress end
/// and waits for every connection to close (for at most `grace`).
pub async fn accept_loop(
    listener: TcpListener,
    router: axum::Router,
    counter: Arc<Counter>,
    header_timeout: Duration,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
    grace: Duration,
) {
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
        let Some(guard) = counter.admit(addr.ip()) else {
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
            .header_read_timeout(header_timeout)
            .max_buf_size(64 << 10)
            .serve_connection(TokioIo::new(stream), service)
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
}
