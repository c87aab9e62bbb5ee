//! A server for the tests, in this process on a free loopback port; the
//! clients that talk to it are `yolah_test_client`'s, re-exported here.

#![allow(dead_code, unused_imports)]

pub use yolah_test_client::*;

/// Starts a server on a free loopback port offering `players`, with an
/// in-memory database; its address.
pub async fn start_server(players: &[&str], limits: yolah_server::Limits) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let config = yolah_server::Config {
        players: players.iter().map(|s| s.to_string()).collect(),
        db: ":memory:".into(),
        limits,
        ..yolah_server::Config::default()
    };
    tokio::spawn(yolah_server::serve(
        listener,
        config,
        std::future::pending(),
    ));
    addr
}
