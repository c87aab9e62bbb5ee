//! One WebSocket connection: frames in through a rate limit, messages out
//! through a bounded queue, pings, an idle timeout, and a Close frame with a
//! code that says why it ended.
//!
//! | code | when |
//! |---|---|
//! | 1000 | the client went quiet past the idle timeout |
//! | 1001 | the server is shutting down |
//! | 1002 | a broken frame, a control frame over 125 bytes, a Close with a code no one may send |
//! | 1007 | a text message that is not UTF-8 |
//! | 1008 | the client does not read what it is sent, or floods |
//! | 1009 | a message over the size limit |

use crate::hub::ConnId;
use crate::names::Person;
use crate::net::Peer;
use crate::protocol::ServerMessage;
use crate::Shared;
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Notify};

/// What the writer sends.
pub enum Outgoing {
    /// A protocol message.
    Message(ServerMessage),
    /// A ping.
    Ping,
}

/// How the rest of the server reaches a connection.
pub struct Handle {
    /// Its bounded queue.
    pub tx: mpsc::Sender<Outgoing>,
    /// Woken when the connection must go (it does not read).
    pub kill: Arc<Notify>,
}

/// The largest WebSocket frame header: 2 bytes, 8 of length, 4 of mask.
pub const FRAME_HEADER_BYTES: usize = 14;
/// Frames dropped by the rate limit in a row before the client is cut off.
const MAX_REFUSED: u32 = 200;

/// Why the read loop ended, and the Close frame to send.
fn close(code: u16, reason: &str) -> Option<CloseFrame> {
    Some(CloseFrame {
        code,
        reason: reason.into(),
    })
}

/// The close code for a read error: 1009 for a message or frame over the
/// size limit (refused from its header, before its kind matters: a ping
/// that long is refused so too), 1002 for anything else broken, a ping or
/// other control frame over 125 bytes included (RFC 6455, 5.5: a protocol
/// error, whatever the size limit).
fn close_for(error: &axum::Error) -> Option<CloseFrame> {
    let text = error.to_string();
    if text.contains("Space limit exceeded") {
        close(1009, "message too large")
    } else if text.contains("UTF-8") {
        close(1007, "text that is not UTF-8")
    } else {
        close(1002, "protocol error")
    }
}

/// Serves one upgraded connection until it ends; `person` is who the name
/// cookie says they are.
pub async fn connection(
    socket: WebSocket,
    shared: Arc<Shared>,
    peer: Peer,
    person: Option<Person>,
) {
    let limits = shared.limits.clone();
    let write_timeout = limits.write_timeout;
    let id: ConnId = shared.next_conn.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel::<Outgoing>(limits.send_queue);
    let kill = Arc::new(Notify::new());
    shared.conns().insert(
        id,
        Handle {
            tx: tx.clone(),
            kill: Arc::clone(&kill),
        },
    );
    let (sink, mut stream) = socket.split();
    let (close_tx, close_rx) = tokio::sync::oneshot::channel::<Option<CloseFrame>>();
    let writer = tokio::spawn(write_loop(sink, rx, close_rx, write_timeout));
    let hello = shared
        .hub()
        .connect(id, &crate::net::client(peer.addr.ip()).to_string(), person);
    shared.dispatch(hello);

    let mut shutdown = shared.shutdown.subscribe();
    let mut ping = tokio::time::interval(limits.ping_interval);
    ping.tick().await;
    let mut rate = RateLimit::new(limits.message_burst, limits.messages_per_second);
    // The idle deadline counts from the last frame heard, whatever else
    // (pings, kills) wakes the loop in between.
    let mut heard = tokio::time::Instant::now();
    // Whether the client closed first: then tungstenite has queued its
    // answering Close, which goes out on the next read.
    let mut peer_closed = false;
    let frame: Option<CloseFrame> = loop {
        tokio::select! {
            _ = tokio::time::sleep_until(heard + limits.idle_timeout) => {
                break close(1000, "idle for too long");
            }
            next = stream.next() => {
                heard = tokio::time::Instant::now();
                let message = match next {
                    None => break None,
                    Some(Err(e)) => break close_for(&e),
                    Some(Ok(m)) => m,
                };
                if matches!(message, Message::Close(_)) {
                    peer_closed = true;
                    break None;
                }
                // Every frame counts against the rate, pings and pongs too.
                match rate.admit(Instant::now()) {
                    Admission::Pass => {}
                    Admission::Refuse { notify } => {
                        // At most one notice a second, so refusals cannot
                        // be used to make the server write.
                        if notify {
                            shared.send(id, ServerMessage::Error { message: "too many messages: slow down".into() });
                        }
                        continue;
                    }
                    Admission::Close => break close(1008, "too many messages"),
                }
                match message {
                    Message::Text(text) => {
                        let out = shared.hub().handle(id, text.as_str());
                        // What the message cost beyond one (an analysis).
                        rate.charge(out.cost);
                        shared.dispatch(out);
                    }
                    Message::Binary(_) => shared.send(id, ServerMessage::Error {
                        message: "send JSON text messages".into(),
                    }),
                    Message::Ping(_) | Message::Pong(_) | Message::Close(_) => {}
                }
            }
            _ = ping.tick() => {
                if tx.try_send(Outgoing::Ping).is_err() {
                    break close(1008, "not reading");
                }
            }
            _ = kill.notified() => break close(1008, "not reading"),
            _ = shutdown.changed() => break close(1001, "server shutting down"),
        }
    };
    shared.conns().remove(&id);
    let out = shared.hub().disconnect(id);
    shared.dispatch(out);
    let _ = close_tx.send(frame);
    drop(tx);
    // The writer sends what is queued and the Close frame, within bounds.
    let _ = tokio::time::timeout(write_timeout + Duration::from_secs(1), writer).await;
    if peer_closed {
        // Reading once more sends tungstenite's answer to the client's
        // Close (its own code, or 1002 for a code nobody may send), and
        // ends the connection.
        let _ = tokio::time::timeout(write_timeout, stream.next()).await;
    }
    drop(peer);
}

/// Sends what the connection queues, until the queue closes, a write
/// fails or times out, or the reader asks for the Close frame: then what is
/// still queued goes first, and the Close last.
async fn write_loop(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    mut rx: mpsc::Receiver<Outgoing>,
    mut close_rx: tokio::sync::oneshot::Receiver<Option<CloseFrame>>,
    write_timeout: Duration,
) {
    loop {
        tokio::select! {
            biased;
            frame = &mut close_rx => {
                while let Ok(out) = rx.try_recv() {
                    if send(&mut sink, out, write_timeout).await.is_err() {
                        return;
                    }
                }
                let frame = frame.unwrap_or(None);
                let _ = tokio::time::timeout(write_timeout, sink.send(Message::Close(frame))).await;
                return;
            }
            out = rx.recv() => match out {
                Some(out) => {
                    if send(&mut sink, out, write_timeout).await.is_err() {
                        return;
                    }
                }
                None => return,
            },
        }
    }
}

/// What the rate limit says of a frame.
#[derive(Debug, PartialEq)]
enum Admission {
    /// Handle it.
    Pass,
    /// Drop it; `notify`: tell the client (at most once a second).
    Refuse { notify: bool },
    /// Too many dropped in a row: cut the client off.
    Close,
}

/// A token bucket: a burst of frames, refilled at a steady rate; a message
/// that costs more (an analysis) takes more tokens after it is handled.
struct RateLimit {
    tokens: f64,
    burst: f64,
    per_second: f64,
    last: Instant,
    refused: u32,
    last_notice: Option<Instant>,
}

impl RateLimit {
    fn new(burst: f64, per_second: f64) -> RateLimit {
        RateLimit {
            tokens: burst,
            burst,
            per_second,
            last: Instant::now(),
            refused: 0,
            last_notice: None,
        }
    }

    /// Whether a frame arriving at `now` may be handled (it takes a token).
    fn admit(&mut self, now: Instant) -> Admission {
        let refill = now.saturating_duration_since(self.last).as_secs_f64() * self.per_second;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.last = now;
        if self.tokens < 1.0 {
            self.refused += 1;
            if self.refused > MAX_REFUSED {
                return Admission::Close;
            }
            let notify = self
                .last_notice
                .is_none_or(|t| now.saturating_duration_since(t) >= Duration::from_secs(1));
            if notify {
                self.last_notice = Some(now);
            }
            return Admission::Refuse { notify };
        }
        self.tokens -= 1.0;
        self.refused = 0;
        Admission::Pass
    }

    /// Takes `cost` more tokens, for a message handled that costs more than
    /// one (the balance may go below zero: later frames wait for it).
    fn charge(&mut self, cost: u32) {
        self.tokens -= f64::from(cost);
    }
}

async fn send(
    sink: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    out: Outgoing,
    write_timeout: Duration,
) -> Result<(), ()> {
    let message = match out {
        Outgoing::Message(m) => Message::Text(
            serde_json::to_string(&m)
                .expect("server messages serialise")
                .into(),
        ),
        Outgoing::Ping => Message::Ping(Vec::new().into()),
    };
    match tokio::time::timeout(write_timeout, sink.send(message)).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

#[cfg(test)]
mod rate_tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_frames_wait_for_the_refill() {
        let start = Instant::now();
        let mut rate = RateLimit::new(3.0, 10.0);
        rate.last = start;
        for _ in 0..3 {
            assert_eq!(rate.admit(start), Admission::Pass);
        }
        assert_eq!(rate.admit(start), Admission::Refuse { notify: true });
        assert_eq!(rate.admit(start), Admission::Refuse { notify: false });
        // A tenth of a second refills one token.
        let later = start + Duration::from_millis(100);
        assert_eq!(rate.admit(later), Admission::Pass);
        // An expensive message leaves a debt that the refill pays first.
        rate.charge(5);
        assert!(matches!(
            rate.admit(later + Duration::from_millis(550)),
            Admission::Refuse { .. }
        ));
        assert_eq!(
            rate.admit(later + Duration::from_millis(610)),
            Admission::Pass
        );
    }

    #[test]
    fn refusals_are_told_at_most_once_a_second() {
        let start = Instant::now();
        let mut rate = RateLimit::new(1.0, 0.01);
        rate.last = start;
        assert_eq!(rate.admit(start), Admission::Pass);
        let at = |ms| start + Duration::from_millis(ms);
        assert_eq!(rate.admit(at(10)), Admission::Refuse { notify: true });
        assert_eq!(rate.admit(at(900)), Admission::Refuse { notify: false });
        assert_eq!(rate.admit(at(1010)), Admission::Refuse { notify: true });
    }

    #[test]
    fn a_client_that_keeps_flooding_is_cut_off() {
        let now = Instant::now();
        let mut rate = RateLimit::new(1.0, 1.0);
        rate.last = now;
        assert_eq!(rate.admit(now), Admission::Pass);
        for _ in 0..MAX_REFUSED {
            assert!(matches!(rate.admit(now), Admission::Refuse { .. }));
        }
        assert_eq!(rate.admit(now), Admission::Close);
    }
}
