//! Perft from the start against the known counts.

use yolah::perft::{divide, perft, perft_threads};
use yolah::Position;

const COUNTS: [u64; 6] = [56, 2_988, 164_512, 8_655_628, 456_814_328, 23_054_479_944];

#[test]
fn perft_to_depth_4() {
    for depth in 1..=4 {
        assert_eq!(
            perft(&Position::START, depth),
            COUNTS[depth as usize - 1],
            "depth {depth}"
        );
    }
    assert_eq!(perft(&Position::START, 0), 1);
}

#[test]
fn divide_sums_to_perft() {
    let d = divide(&Position::START, 4, 2);
    assert_eq!(d.len(), 56);
    assert_eq!(d.iter().map(|x| x.1).sum::<u64>(), COUNTS[3]);
}

/// A tenth of a second (the dev profile optimises the engine too).
#[test]
fn perft_depth_5() {
    assert_eq!(perft(&Position::START, 5), COUNTS[4]);
}

/// 23 billion leaves: seconds in release, on two threads. Run by hand with
/// `cargo test --release -p yolah --test perft -- --ignored`.
#[test]
#[ignore = "slow: cargo test --release -p yolah --test perft -- --ignored"]
fn perft_depth_6() {
    assert_eq!(perft_threads(&Position::START, 6, 2), COUNTS[5]);
}
