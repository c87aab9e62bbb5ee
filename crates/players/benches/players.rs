//! Criterion benches of the players' hot paths: the heuristic evaluation,
//! MCTS iterations, an alpha-beta search, and the network.
//!
//! `cargo bench -p yolah-players` (add `-- PATTERN` to pick some, e.g.
//! `'^network/'`: the shipped network; `'^network_gen2/'`: the first
//! format's gen2; criterion matches the pattern anywhere in a name).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use yolah::playout::sample_positions;
use yolah::{Move, Position};
use yolah_players::eval::{evaluate, Evaluator, Weights};
use yolah_players::from_spec;
use yolah_players::nn::v2::quant::QuantNet as QuantNetV2;
use yolah_players::nn::{Network, QuantNet};

fn players(c: &mut Criterion) {
    let positions = sample_positions(1024, 11);
    let mut g = c.benchmark_group("players");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("evaluate", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| evaluate(black_box(p), &Weights::HAND, 0))
                .sum::<i32>()
        })
    });
    // One MCTS iteration (select, expand, playout, back up), measured over
    // 2000 of them from the start with a fresh tree each time.
    g.throughput(Throughput::Elements(2000));
    g.bench_function("mcts_iteration", |b| {
        b.iter_batched(
            || from_spec("mcts:iterations=2000,nodes=262144").unwrap(),
            |mut p| p.analyse(&Position::START),
            BatchSize::LargeInput,
        )
    });
    g.throughput(Throughput::Elements(1));
    g.bench_function("alphabeta_depth_5_start", |b| {
        b.iter_batched(
            || from_spec("alphabeta:depth=5").unwrap(),
            |mut p| p.analyse(&Position::START),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn network(c: &mut Criterion) {
    let positions = sample_positions(1024, 11);
    let moves: Vec<_> = positions.iter().map(|p| p.legal_moves()[0]).collect();
    // The shipped network (the second format, 256 wide) and gen2 (the
    // first format), each under its own name.
    network_benches(c, "network", &positions, &moves, &shipped_256());
    network_benches(c, "network_gen2", &positions, &moves, &QuantNet::gen2());
}

/// The shipped network as its own type, so that its calls are the search's.
fn shipped_256() -> QuantNetV2<256> {
    match Network::shipped() {
        Network::W256(net) => net,
        _ => panic!("the shipped network is no longer 256 wide: change this bench"),
    }
}

fn network_benches<E: Evaluator>(
    c: &mut Criterion,
    group: &str,
    positions: &[Position],
    moves: &[Move],
    net: &E,
) {
    let states: Vec<_> = positions.iter().map(|p| net.root_state(p)).collect();
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(positions.len() as u64));
    // Full: accumulators from scratch, then the rest of the network.
    g.bench_function("evaluate_full", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| net.evaluate(black_box(p), &net.root_state(p), 0))
                .sum::<i32>()
        })
    });
    // Incremental: the accumulators are kept; only the rest is computed.
    g.bench_function("evaluate_incremental", |b| {
        b.iter(|| {
            positions
                .iter()
                .zip(&states)
                .map(|(p, s)| net.evaluate(black_box(p), s, 0))
                .sum::<i32>()
        })
    });
    g.bench_function("accumulator_update", |b| {
        b.iter(|| {
            // The whole result (both views, every lane) must be made.
            for ((p, s), &m) in positions.iter().zip(&states).zip(moves) {
                black_box(net.child_state(s, black_box(p), m));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, players, network);
criterion_main!(benches);
