//! A move's round trip with 200 games running, against a separate
//! `yolah serve` process: 400 scripted clients on loopback play random legal
//! moves as fast as the server answers; each move is timed from its send to
//! the state that shows it. A measurement, printed, not asserted (timings
//! belong to release builds on a quiet machine):
//!
//! ```sh
//! cargo test --release -p yolah-cli --no-default-features --test serve_load -- --ignored --nocapture
//! ```

mod serving;

use serde_json::json;
use serving::*;
use std::time::{Duration, Instant};

/// One side of a game: random legal moves; the round trip of each.
async fn side(mut ws: Ws, role: &'static str, seed: u64) -> Vec<Duration> {
    let mut rng = yolah::Rng::new(seed);
    let mut times = Vec::new();
    let mut sent: Option<(Instant, usize)> = None;
    loop {
        let s = next_of(&mut ws, "state").await;
        let plies = s["moves"].as_array().unwrap().len();
        if let Some((at, before)) = sent {
            if plies > before {
                times.push(at.elapsed());
                sent = None;
            }
        }
        if s["game_over"] == true {
            return times;
        }
        if s["turn"] == role && sent.is_none() {
            let legal = s["legal"].as_array().unwrap();
            let m = legal[rng.below(legal.len() as u32) as usize].clone();
            sent = Some((Instant::now(), plies));
            send(&mut ws, json!({"type": "move", "move": m})).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run it in release, with --nocapture"]
async fn a_moves_round_trip_with_two_hundred_games_running() {
    const GAMES: u64 = 200;
    let s = serve(&[
        "--db",
        ":memory:",
        "--max-games-per-addr",
        "100000",
        "--max-daily-games-per-addr",
        "100000",
        "--max-connections-per-addr",
        "100000",
    ]);
    // Every game seated first, then all played at once.
    let mut pairs = Vec::new();
    for _ in 0..GAMES {
        let (black, welcome) = new_game(&s.addr, "human", "black").await;
        let mut white = client(&s.addr).await;
        send(
            &mut white,
            json!({"type": "join", "key": welcome["invite"]}),
        )
        .await;
        next_of(&mut white, "welcome").await;
        pairs.push((black, white));
    }
    let begin = Instant::now();
    let mut tasks = Vec::new();
    for (g, (black, white)) in pairs.into_iter().enumerate() {
        tasks.push(tokio::spawn(side(black, "black", 2 * g as u64)));
        tasks.push(tokio::spawn(side(white, "white", 2 * g as u64 + 1)));
    }
    let mut times = Vec::new();
    for t in tasks {
        times.extend(t.await.unwrap());
    }
    let seconds = begin.elapsed().as_secs_f64();
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    eprintln!(
        "{GAMES} games at once, {} moves in {seconds:.1} s ({:.0} moves/s): round trip p50 {:.2} ms, \
         p99 {:.2} ms, max {:.2} ms",
        times.len(),
        times.len() as f64 / seconds,
        at(0.5),
        at(0.99),
        at(1.0)
    );
}
