//! Criterion benches of the engine's hot paths.
//!
//! `cargo bench --bench engine` (add `-- NAME` to pick one).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;
use yolah::attacks::queen_moves;
use yolah::perft::perft;
use yolah::playout::{random_game, sample_positions};
use yolah::{Position, Rng, Square};

fn magic_lookup(c: &mut Criterion) {
    let positions = sample_positions(1024, 11);
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
    let positions = sample_positions(1024, 11);
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

criterion_group!(benches, magic_lookup, move_generation, whole_games);
criterion_main!(benches);
