//! What a hostile or unlucky client found against a separate `yolah serve`
//! process (issue 33), each finding with the test that shows it fixed.

mod serving;

use serde_json::json;
use serving::*;

/// Another process holds the database's write lock while the computer
/// thinks: its move is saved again after waits that double, a handful of
/// times, then the game stops and the person is told; the person who left
/// costs no more than the one who stayed. The server answers everyone
/// meanwhile (no wait under the hub's lock).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_refuses_writes_stops_the_game_after_a_few_tries() {
    let (_dir, db) = temp_db("refuses");
    let s = serve(&["--db", &db, "--players", "alphabeta:time=3s"]);
    let (mut stays, _) = new_game(&s.addr, "alphabeta:time=3s", "white").await;
    let (leaves, _) = new_game(&s.addr, "alphabeta:time=3s", "white").await;
    drop(leaves);
    // Both searches run for three seconds: the lock is taken well before.
    let lock = rusqlite::Connection::open(&db).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let first = next_of(&mut stays, "error").await;
    assert!(
        first["message"].as_str().unwrap().contains("trying again"),
        "{first}"
    );
    let stats = stats(&s.addr).await;
    assert_eq!(
        stats["games_in_memory"], 2,
        "the server still answers: {stats}"
    );
    let stopped = next_of(&mut stays, "error").await;
    assert!(
        stopped["message"].as_str().unwrap().contains("stopped"),
        "{stopped}"
    );
    let state = next_of(&mut stays, "state").await;
    assert!(state["stopped"].is_string(), "{state}");
    assert_eq!(state["legal"], json!([]));
    // Both games gave up after five attempts each: ten lines in the log.
    until("both games to give up", || async {
        s.stderr()
            .iter()
            .filter(|l| l.contains("attempt 5 of 5"))
            .count()
            == 2
    })
    .await;
    let log = s.stderr();
    let failures = log.iter().filter(|l| l.contains("not saved")).count();
    assert_eq!(failures, 10, "{log:#?}");
    send(&mut stays, json!({"type": "move", "move": "d4:b2"})).await;
    assert!(next_of(&mut stays, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("stopped"));
    drop(lock);
}

/// A game pushed out of memory to make room (`--max-games 1`) tells its
/// watchers, who would otherwise wait for moves that never come.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_of_an_evicted_game_are_told() {
    let s = serve(&["--db", ":memory:", "--max-games", "1"]);
    let (owner, welcome) = new_game(&s.addr, "human", "black").await;
    let mut watcher = client(&s.addr).await;
    send(
        &mut watcher,
        json!({"type": "join", "key": welcome["watch"]}),
    )
    .await;
    next_of(&mut watcher, "state").await;
    drop(owner);
    // Once the owner's seat is free, the game may give way to a new one.
    let mut newcomer = client(&s.addr).await;
    until("the owner's connection to close", || async {
        stats(&s.addr).await["websockets"] == 2
    })
    .await;
    send(
        &mut newcomer,
        json!({"type": "new", "opponent": "human", "color": "black"}),
    )
    .await;
    next_of(&mut newcomer, "welcome").await;
    let told = next_of(&mut watcher, "error").await;
    assert!(
        told["message"]
            .as_str()
            .unwrap()
            .contains("left the server's memory"),
        "{told}"
    );
}

/// Idle WebSockets cost a few kilobytes each, not the 141 KB of
/// tungstenite's default buffers (a 128 KiB read buffer, zero-filled).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_websocket_costs_kilobytes() {
    const IDLE: usize = 400;
    let s = serve(&["--db", ":memory:", "--max-connections-per-addr", "10000"]);
    let mut held = Vec::new();
    // Warm up first: the runtime's and the allocator's own growth.
    for _ in 0..50 {
        held.push(client(&s.addr).await);
    }
    let before = s.status_kb("VmRSS:");
    for _ in 0..IDLE {
        held.push(client(&s.addr).await);
    }
    until("every WebSocket to be open", || async {
        stats(&s.addr).await["websockets"] == held.len()
    })
    .await;
    let per_connection = (s.status_kb("VmRSS:").saturating_sub(before)) as f64 / IDLE as f64;
    eprintln!("{per_connection:.1} kB per idle WebSocket");
    assert!(per_connection < 40.0, "{per_connection:.1} kB each");
}

/// `yolah serve` in a shell whose descriptor limit is `limit` (soft and
/// hard alike unless `soft_only`).
fn serve_under_ulimit(limit: u32, soft_only: bool, args: &[&str]) -> Served {
    let flag = if soft_only { "-Sn" } else { "-n" };
    let mut sh = std::process::Command::new("sh");
    sh.args([
        "-c",
        &format!("ulimit {flag} {limit} && exec \"$0\" \"$@\""),
        env!("CARGO_BIN_EXE_yolah"),
    ]);
    serve_with(sh, args)
}

/// With few descriptors to spare (`ulimit -n 200`), the server lowers its
/// connection cap below them and says so: 300 idle connections are turned
/// away at once instead of leaving it unable to accept (and `GET /` still
/// answers). A soft limit below the hard one is raised at start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_cap_fits_under_the_descriptor_limit() {
    let args = ["--db", ":memory:", "--max-connections-per-addr", "10000"];
    let s = serve_under_ulimit(200, false, &args);
    let cap = 200 - 64;
    assert!(
        s.stderr()
            .iter()
            .any(|l| l.contains(&format!("at most {cap} connections"))),
        "{:?}",
        s.stderr()
    );
    let mut idle = Vec::new();
    for _ in 0..300 {
        idle.push(tokio::net::TcpStream::connect(&s.addr).await.unwrap());
    }
    // The ones over the cap were closed; the page is served (by a place
    // freed by one of them, or one never taken).
    let page = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        s.addr
    );
    until("the server to turn the extra connections away", || async {
        status_of(&s.addr, &page).await == Some(200)
    })
    .await;
    let open = stats(&s.addr).await["connections"].as_u64().unwrap();
    assert!(open <= cap, "{open} connections open, cap {cap}");
    assert!(
        !s.stderr().iter().any(|l| l.contains("cannot accept")),
        "{:?}",
        s.stderr()
    );
    drop(idle);

    let raised = serve_under_ulimit(300, true, &args);
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", raised.pid())).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let numbers: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers[0], numbers[1], "soft raised to hard: {line}");
    assert_ne!(numbers[0], "300", "{line}");
}

/// A client that pipelines requests and never reads the answers is cut off
/// once the server's writes stall for `--write-timeout`; a kept-alive
/// connection that sends nothing more is closed after `--header-timeout`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_do_not_read_or_do_not_ask_are_dropped() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = serve(&[
        "--db",
        ":memory:",
        "--write-timeout",
        "1s",
        "--header-timeout",
        "1s",
    ]);
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut pipelined = socket.connect(s.addr.parse().unwrap()).await.unwrap();
    let request = format!("GET / HTTP/1.1\r\nHost: {}\r\n\r\n", s.addr);
    let writer = tokio::spawn(async move {
        for _ in 0..3000 {
            if pipelined.write_all(request.as_bytes()).await.is_err() {
                return pipelined;
            }
        }
        pipelined
    });
    until("the pipelining client to be dropped", || async {
        // This request's own connection is the only one left.
        stats(&s.addr).await["connections"] == 1
    })
    .await;
    writer.abort();

    let mut kept = tokio::net::TcpStream::connect(&s.addr).await.unwrap();
    kept.write_all(format!("GET /stats HTTP/1.1\r\nHost: {}\r\n\r\n", s.addr).as_bytes())
        .await
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = kept.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    // Then nothing: the server closes it.
    let closed = tokio::time::timeout(DEADLINE, async {
        loop {
            match kept.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => continue,
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "an idle kept-alive connection stays open");
}

/// The close code a WebSocket ends with, reading through anything else.
async fn close_code(ws: &mut Ws) -> Option<u16> {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        match tokio::time::timeout(DEADLINE, ws.next()).await {
            Ok(Some(Ok(Message::Close(frame)))) => return frame.map(|f| f.code.into()),
            Ok(Some(Ok(_))) => continue,
            Ok(_) => return None,
            Err(_) => panic!("the server did not close"),
        }
    }
}

/// Broken frames close with the code RFC 6455 gives them: a ping over 125
/// bytes is a protocol error (1002) up to the frame limit, past which the
/// frame is refused from its header as too large (1009), whatever its kind;
/// text that is not UTF-8 is 1007; a Close with a code nobody may send
/// (999) is answered with a Close 1002. A field given twice is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_frames_close_with_the_rfc_codes_and_doubled_fields_are_refused() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
    use tokio_tungstenite::tungstenite::protocol::CloseFrame;
    use tokio_tungstenite::tungstenite::Message;
    let s = serve(&["--db", ":memory:"]);
    let mut ws = client(&s.addr).await;
    ws.send(Message::Ping(vec![0u8; 200].into())).await.unwrap();
    assert_eq!(close_code(&mut ws).await, Some(1002));
    let mut ws = client(&s.addr).await;
    ws.send(Message::Ping(vec![0u8; 5000].into()))
        .await
        .unwrap();
    assert_eq!(close_code(&mut ws).await, Some(1009));
    let mut ws = client(&s.addr).await;
    ws.send(Message::Close(Some(CloseFrame {
        code: CloseCode::from(999),
        reason: "".into(),
    })))
    .await
    .unwrap();
    assert_eq!(close_code(&mut ws).await, Some(1002));

    let mut ws = client(&s.addr).await;
    ws.send(Message::Text(
        r#"{"type":"new","opponent":"human","opponent":"random","color":"black"}"#.into(),
    ))
    .await
    .unwrap();
    let refused = next_of(&mut ws, "error").await;
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains(r#"field "opponent" given twice"#),
        "{refused}"
    );
}

/// Invalid UTF-8 in a text frame: 1007. Sent raw (a client library will
/// not send it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_that_is_not_utf8_closes_with_1007() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = serve(&["--db", ":memory:"]);
    let mut tcp = tokio::net::TcpStream::connect(&s.addr).await.unwrap();
    let handshake = format!(
        "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        s.addr
    );
    tcp.write_all(handshake.as_bytes()).await.unwrap();
    // A masked text frame (mask 0) of two bytes that are not UTF-8.
    tcp.write_all(&[0x81, 0x82, 0, 0, 0, 0, 0xff, 0xfe])
        .await
        .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    let code = tokio::time::timeout(DEADLINE, async {
        loop {
            let n = tcp.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed without a Close frame");
            seen.extend_from_slice(&buf[..n]);
            // After the 101 response and the hello, a Close frame: 0x88.
            if let Some(i) = seen.windows(2).position(|w| w[0] == 0x88 && w[1] >= 2) {
                if seen.len() >= i + 4 {
                    return u16::from_be_bytes([seen[i + 2], seen[i + 3]]);
                }
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(code, 1007);
}

/// DNS rebinding: a page on `evil.example`, whose name is made to resolve
/// to the server, sends `Host: evil.example` (and that Origin): refused,
/// on every route. The names given with `--public-host` are answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_for_other_host_names_are_refused() {
    let s = serve(&["--db", ":memory:", "--public-host", "yolah.example.org"]);
    let ask = |host: &str, path: &str, origin: Option<&str>| {
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Connection: Upgrade\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n"
        )
    };
    for path in ["/", "/ws", "/stats", "/games"] {
        let request = ask("evil.example", path, Some("http://evil.example"));
        assert_eq!(status_of(&s.addr, &request).await, Some(421), "{path}");
    }
    let (status, body) = get(&s.addr, "/").await;
    assert_eq!(status, 200);
    let refusal = http(
        &s.addr,
        "GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(refusal.0, 421);
    assert!(refusal.1.contains("yolah.example.org"), "{}", refusal.1);
    assert!(body.contains("<html"));
    let port = s.addr.rsplit(':').next().unwrap();
    let named = format!("yolah.example.org:{port}");
    assert_eq!(
        status_of(&s.addr, &ask(&named, "/stats", None)).await,
        Some(200)
    );
    assert_eq!(
        status_of(
            &s.addr,
            &ask(&named, "/ws", Some(&format!("http://{named}")))
        )
        .await,
        Some(101),
        "the page on the public name opens its WebSocket"
    );
    let local = format!("localhost:{port}");
    assert_eq!(status_of(&s.addr, &ask(&local, "/", None)).await, Some(200));
}

/// One server per database: a second `yolah serve` on the same file exits
/// with a reason (and never says it serves), while the first goes on; once
/// the first is killed, the file is free.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_the_same_database_is_refused() {
    let (_dir, db) = temp_db("twice");
    let first = serve(&["--db", &db]);
    let (status, err) = serve_fails(&["--db", &db]);
    assert!(!status.success());
    assert!(
        err.contains(&format!("process {}", first.pid()))
            && err.contains("one server per database"),
        "{} {err}",
        first.pid()
    );
    assert!(!err.contains("serving http"), "{err}");
    assert_eq!(get(&first.addr, "/stats").await.0, 200);
    first.kill9();
    let again = serve(&["--db", &db]);
    assert_eq!(get(&again.addr, "/stats").await.0, 200);
}

/// "serving http://…" comes only once the database is open: a database
/// that cannot be opened is the only thing said.
#[test]
fn a_database_that_cannot_be_opened_is_reported_before_serving() {
    let (status, err) = serve_fails(&["--db", "/nonexistent-dir/games.db"]);
    assert!(!status.success());
    assert!(err.contains("/nonexistent-dir/games.db"), "{err}");
    assert!(!err.contains("serving http"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Another process holds the database's write lock: a move is refused at
/// once with the reason (the hub does not wait for SQLite, so nothing else
/// waits for it), the archive still reads, and once the lock is gone the
/// same move is played.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_refuses_moves_at_once_and_the_archive_still_reads() {
    let (_dir, db) = temp_db("locked");
    let s = serve(&["--db", &db]);
    let (mut black, welcome) = new_game(&s.addr, "human", "black").await;
    let mut white = client(&s.addr).await;
    send(
        &mut white,
        json!({"type": "join", "key": welcome["invite"]}),
    )
    .await;
    next_of(&mut white, "welcome").await;
    let lock = rusqlite::Connection::open(&db).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let readers: Vec<_> = (0..40)
        .map(|_| {
            let addr = s.addr.clone();
            tokio::spawn(async move { get(&addr, "/games?limit=100").await.0 })
        })
        .collect();
    let asked = std::time::Instant::now();
    send(&mut black, json!({"type": "move", "move": "d5:b7"})).await;
    let refused = next_of(&mut black, "error").await;
    eprintln!(
        "a move refused by a locked database after {:?}",
        asked.elapsed()
    );
    assert!(
        refused["message"].as_str().unwrap().contains("locked"),
        "{refused}"
    );
    for r in readers {
        assert_eq!(r.await.unwrap(), 200);
    }
    lock.execute_batch("COMMIT").unwrap();
    send(&mut black, json!({"type": "move", "move": "d5:b7"})).await;
    let state = next_where(&mut white, |m| {
        m["type"] == "state" && m["moves"] == json!(["d5:b7"])
    })
    .await;
    assert_eq!(state["turn"], "white");
}

/// One address with six slow computer games waiting (one search thread,
/// a second each) makes another person's game against `random` wait for
/// one of those searches at most, not six: the queue takes addresses in
/// turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_search_queue_is_shared_fairly_between_addresses() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let s = serve(&[
        "--db",
        ":memory:",
        "--search-threads",
        "1",
        "--players",
        "alphabeta:time=1s",
        "random",
    ]);
    let answered = Arc::new(AtomicUsize::new(0));
    let mut hogs = Vec::new();
    for _ in 0..6 {
        let mut ws = client_from(&s.addr, "127.0.0.1").await;
        send(
            &mut ws,
            json!({"type": "new", "opponent": "alphabeta:time=1s", "color": "white"}),
        )
        .await;
        next_of(&mut ws, "welcome").await;
        let answered = Arc::clone(&answered);
        hogs.push(tokio::spawn(async move {
            next_where(&mut ws, |m| {
                m["type"] == "state" && m["moves"].as_array().unwrap().len() == 1
            })
            .await;
            answered.fetch_add(1, Ordering::SeqCst);
            ws
        }));
    }
    let mut victim = client_from(&s.addr, "127.0.0.2").await;
    send(
        &mut victim,
        json!({"type": "new", "opponent": "random", "color": "white"}),
    )
    .await;
    next_where(&mut victim, |m| {
        m["type"] == "state" && m["moves"].as_array().unwrap().len() == 1
    })
    .await;
    let before = answered.load(Ordering::SeqCst);
    assert!(
        before <= 2,
        "the other address waited for {before} of its searches"
    );
    for h in hogs {
        h.await.unwrap();
    }
}

/// What one address can make the server store is bounded: games it starts
/// count against a daily quota kept in the database (so a restart does not
/// reset it), whether or not they are finished; another address is not
/// held back. Short games are kept but not listed in the archive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_one_address_may_store_are_bounded_and_short_ones_unlisted() {
    let (_dir, db) = temp_db("quota");
    let args = [
        "--db",
        db.as_str(),
        "--max-daily-games-per-addr",
        "3",
        "--players",
        "random",
    ];
    let s = serve(&args);
    for _ in 0..3 {
        let (ws, _) = new_game(&s.addr, "random", "white").await;
        drop(ws);
    }
    let mut fourth = client(&s.addr).await;
    send(
        &mut fourth,
        json!({"type": "new", "opponent": "random", "color": "white"}),
    )
    .await;
    let refused = next_of(&mut fourth, "error").await;
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("3 games in the last 24 hours"),
        "{refused}"
    );
    s.kill9();
    let s = serve(&args);
    let mut again = client(&s.addr).await;
    send(
        &mut again,
        json!({"type": "new", "opponent": "random", "color": "white"}),
    )
    .await;
    assert!(next_of(&mut again, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("24 hours"));
    let mut other = client_from(&s.addr, "127.0.0.3").await;
    send(
        &mut other,
        json!({"type": "new", "opponent": "random", "color": "white"}),
    )
    .await;
    next_of(&mut other, "welcome").await;
    // None of them was played to ten plies: the archive lists none.
    let (_, body) = get(&s.addr, "/games").await;
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["games"],
        json!([])
    );
}

/// Behind a dual-stack listener (`--addr ::`) an IPv4 client is still its
/// own address: the bounds count `127.0.0.1` and `127.0.0.2` apart (an
/// IPv6 client counts as its /64 network, which `::ffff:a.b.c.d` must not
/// be taken for, or every IPv4 client would share one bound).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipv4_clients_of_an_ipv6_listener_are_counted_apart() {
    let s = serve(&[
        "--db",
        ":memory:",
        "--addr",
        "::",
        "--max-seeks-per-addr",
        "1",
    ]);
    let port = s.addr.rsplit(':').next().unwrap();
    let v4 = format!("127.0.0.1:{port}");
    let seek = json!({"type": "seek", "color": "black", "clock": "none"});
    let mut seekers = Vec::new();
    for from in ["127.0.0.1", "127.0.0.2"] {
        let mut ws = client_from(&v4, from).await;
        send(&mut ws, seek.clone()).await;
        let answer = next_where(&mut ws, |m| m["type"] != "hello").await;
        assert_eq!(answer["type"], "lobby", "from {from}: {answer}");
        seekers.push(ws);
    }
    let mut again = client_from(&v4, "127.0.0.1").await;
    send(&mut again, seek).await;
    let refused = next_of(&mut again, "error").await;
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("your address has 1"),
        "{refused}"
    );
}
