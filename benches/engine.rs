//! Criterion benches of the engine's hot paths.
//!
//! `cargo bench --bench engine` (add `-- NAME` to pick one).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use yolah::attacks::queen_moves;
use yolah::perft::perft;
use yolah::playout::random_game;
use yolah::{Position, Rng, Square};

/// Positions from random games at every stage, so benches see realistic
/// boards rather than only the start.
fn sample_positions(n: usize) -> Vec<Position> {
    let mut rng = Rng::new(11);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::START;
        while !pos.is_game_over() && out.len() < n {
            out.push(pos);
            pos.play(pos.random_move(&mut rng));
        }
    }
    out
}

fn magic_lookup(c: &mut Criterion) {
    let positions = sample_positions(1024);
    let queries: Vec<(Square, yolah::Bitboard)> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| (Square::new_masked(i as u32 * 37), p.blockers()))
        .collect();
    let mut g = c.benchmark_group("magic");
    g.throughput(Throughput::Elements(queries.len() as u64));
    g.bench_function("queen_moves", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &(sq, blockers) in &queries {
                acc ^= queen_moves(black_box(sq), black_box(blockers)).0;
            }
            acc
        })
    });
    g.finish();
}

fn move_generation(c: &mut Criterion) {
    let positions = sample_positions(1024);
    let mut g = c.benchmark_group("movegen");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("legal_moves", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).legal_moves().len())
                .sum::<usize>()
        })
    });
    g.bench_function("legal_move_count", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).legal_move_count())
                .sum::<u32>()
        })
    });
    g.bench_function("random_move", |b| {
        let mut rng = Rng::new(1);
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).random_move(&mut rng).to_u16() as u32)
                .sum::<u32>()
        })
    });
    g.bench_function("play_undo", |b| {
        let pairs: Vec<(Position, yolah::Move)> =
            positions.iter().map(|p| (*p, p.legal_moves()[0])).collect();
        b.iter(|| {
            let mut acc = 0u16;
            for &(p, m) in &pairs {
                let mut p = black_box(p);
                p.play(m);
                acc ^= p.ply();
                p.undo(m);
                acc ^= black_box(p).ply();
            }
            acc
        })
    });
    g.finish();
}

fn whole_games(c: &mut Criterion) {
    let mut g = c.benchmark_group("games");
    g.throughput(Throughput::Elements(1));
    g.bench_function("random_game", |b| {
        let mut seed = 0;
        b.iter_batched(
            || {
                seed += 1;
                Rng::new(seed)
            },
            |mut rng| random_game(Position::START, &mut rng),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("perft_4", |b| {
        b.iter(|| perft(black_box(&Position::START), 4))
    });
    g.finish();
}

fn players(c: &mut Criterion) {
    use yolah::players::eval::{evaluate, Weights};
    use yolah::players::from_spec;
    let positions = sample_positions(1024);
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
    use yolah::nn::QuantNet;
    use yolah::players::alphabeta::Evaluator;
    let net = QuantNet::default_net();
    let positions = sample_positions(1024);
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
                .map(|((p, s), &m)| net.update(s, black_box(p), m)[0].0[0])
                .sum::<i32>()
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    magic_lookup,
    move_generation,
    whole_games,
    players,
    network
);
criterion_main!(benches);
