//! `yolah serve` killed with SIGKILL in the middle of 50 games, and started
//! again on the same database: every game comes back at the position its
//! players last saw, with the same keys; no move is lost or played twice.

mod serving;

use serde_json::{json, Value};
use serving::{client, next_of, send, Served};

/// Starts `yolah serve` on a free port with `db`.
fn serve(db: &str) -> Served {
    serving::serve(&[
        "--db",
        db,
        "--players",
        "random",
        "alphabeta:depth=2",
        "--max-games-per-addr",
        "1000",
        "--max-connections-per-addr",
        "1000",
    ])
}

/// One game: its keys, and the moves its players last saw.
struct Game {
    keys: Vec<(String, &'static str)>,
    seen: Vec<Value>,
    computer: bool,
}

/// Plays `plies` moves of game `g` (even: against the computer, odd: two
/// people) and returns what the players saw.
async fn play(addr: &str, g: usize, plies: usize) -> Game {
    let mut rng = yolah::Rng::new(g as u64);
    let mut black = client(addr).await;
    let computer = g.is_multiple_of(2);
    let opponent = if computer {
        "alphabeta:depth=2"
    } else {
        "human"
    };
    send(
        &mut black,
        json!({"type": "new", "opponent": opponent, "color": "black"}),
    )
    .await;
    let welcome = next_of(&mut black, "welcome").await;
    let mut keys = vec![(welcome["key"].as_str().unwrap().to_string(), "black")];
    let mut white = None;
    if !computer {
        let invite = welcome["invite"].as_str().unwrap().to_string();
        let mut w = client(addr).await;
        send(&mut w, json!({"type": "join", "key": invite})).await;
        next_of(&mut w, "welcome").await;
        keys.push((invite, "white"));
        white = Some(w);
    }
    let mut state = next_of(&mut black, "state").await;
    let mut played = 0;
    while played < plies && state["game_over"] != true {
        let mover = if state["turn"] == "black" {
            &mut black
        } else if let Some(w) = white.as_mut() {
            w
        } else {
            // The computer's turn: wait for its move.
            state = next_of(&mut black, "state").await;
            continue;
        };
        let legal = state["legal"].as_array().unwrap();
        let m = legal[rng.below(legal.len() as u32) as usize].clone();
        let n = state["moves"].as_array().unwrap().len();
        send(mover, json!({"type": "move", "move": m})).await;
        state = loop {
            let s = next_of(mover, "state").await;
            if s["moves"].as_array().unwrap().len() > n {
                break s;
            }
        };
        played += 1;
    }
    Game {
        keys,
        seen: state["moves"].as_array().unwrap().clone(),
        computer,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_games_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db").to_str().unwrap().to_string();
    let server = serve(&db);
    let addr = server.addr.clone();
    let mut tasks = Vec::new();
    for g in 0..50 {
        let addr = addr.clone();
        tasks.push(tokio::spawn(async move { play(&addr, g, 3 + g % 7).await }));
    }
    let mut games = Vec::new();
    for t in tasks {
        games.push(t.await.unwrap());
    }
    // SIGKILL: no shutdown, no flush, nothing.
    server.kill9();

    let server = serve(&db);
    let addr = server.addr.clone();
    for game in &games {
        for (key, role) in &game.keys {
            let mut ws = client(&addr).await;
            send(&mut ws, json!({"type": "join", "key": key})).await;
            assert_eq!(next_of(&mut ws, "welcome").await["role"], *role);
            let moves = next_of(&mut ws, "state").await["moves"]
                .as_array()
                .unwrap()
                .clone();
            if game.computer {
                // Its computer may have been thinking at the kill, and has
                // thought again since: what was seen is the start of it.
                assert_eq!(moves[..game.seen.len()], game.seen[..], "{key}");
                assert!(moves.len() <= game.seen.len() + 2);
            } else {
                assert_eq!(moves, game.seen, "{key}");
            }
        }
    }
    server.kill9();
}
