//! Criterion benches of the players' hot paths: the heuristic evaluation,
//! MCTS iterations, an alpha-beta search, and the network.
//!
//! `cargo bench -p yolah-players` (add `-- NAME` to pick one, e.g. `network`).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use yolah::playout::sample_positions;
use yolah::Position;
use yolah_players::eval::{evaluate, Evaluator, Weights};
use yolah_players::from_spec;
use yolah_players::nn::QuantNet;

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
    let net = QuantNet::gen2();
    let positions = sample_positions(1024, 11);
    let states: Vec<_> = positions.iter().map(|p| net.accumulators(p)).collect();
    let moves: Vec<_> = positions.iter().map(|p| p.legal_moves()[0]).collect();
    let mut g = c.benchmark_group("network");
    g.throughput(Throughput::Elements(positions.len() as u64));
    // Full: accumulators from scratch, then the rest of the network.
    g.bench_function("evaluate_full", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| net.evaluate(black_box(p), &net.accumulators(p), 0))
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
            positions
                .iter()
                .zip(&states)
                .zip(&moves)
                // The whole result (both views, every lane) must be made.
                .map(|((p, s), &m)| black_box(net.update(s, black_box(p), m))[0].0[0])
                .sum::<i32>()
        })
    });
    g.finish();
}

criterion_group!(benches, players, network);
criterion_main!(benches);
