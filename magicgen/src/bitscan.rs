//! The single-bit perfect hash ("bit scan" by multiplication), the book's
//! warm-up for magic bitboards.
//!
//! A magic `m` is perfect for `bits` index bits when the 64 one-bit words
//! hash to distinct slots: `(1 << i) * m >> (64 - bits)`, that is
//! `(m << i) >> (64 - bits)`, is different for every `i` in `0..64`.
//! Six bits (a table of exactly 64 slots) is the least possible.

/// The slot of the word `1 << i`.
pub const fn bitscan_slot(magic: u64, bits: u32, i: u32) -> u64 {
    (magic << i) >> (64 - bits)
}

/// Whether `magic` hashes the 64 one-bit words to distinct slots, checked
/// directly, independently of how the magic was found.
pub fn is_perfect(magic: u64, bits: u32) -> bool {
    if !(6..=32).contains(&bits) {
        return false;
    }
    let mut seen = vec![false; 1 << bits];
    (0..64).all(|i| !std::mem::replace(&mut seen[bitscan_slot(magic, bits, i) as usize], true))
}

/// The lookup table of a perfect magic: slot → bit index (`-1` where unused).
pub fn table(magic: u64, bits: u32) -> Vec<i8> {
    let mut table = vec![-1i8; 1 << bits];
    for i in 0..64 {
        table[bitscan_slot(magic, bits, i) as usize] = i as i8;
    }
    table
}

/// Plain random search: up to `max_tries` uniformly random candidates from a
/// seeded ChaCha8 generator. Returns the magic and the tries it took.
pub fn random_search(bits: u32, seed: u64, max_tries: u64) -> (Option<u64>, u64) {
    use rand_chacha::rand_core::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for tries in 1..=max_tries {
        let magic = rng.next_u64();
        if is_perfect(magic, bits) {
            return (Some(magic), tries);
        }
    }
    (None, max_tries)
}

/// Z3 bit-vector solving: asks for a 64-bit `m` whose 64 slots are pairwise
/// distinct. Returns `None` when the solver proves there is none.
#[cfg(feature = "z3")]
pub fn z3_search(bits: u32) -> Option<u64> {
    use z3::ast::{Ast, BV};
    let solver = z3::Solver::new();
    let magic = BV::new_const("magic", 64);
    let down = BV::from_u64(u64::from(64 - bits), 64);
    let slots: Vec<BV> = (0..64u64)
        .map(|i| magic.bvshl(BV::from_u64(i, 64)).bvlshr(&down))
        .collect();
    solver.assert(BV::distinct(&slots));
    match solver.check() {
        z3::SatResult::Sat => solver.get_model()?.eval(&magic, true)?.as_u64(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_books_magics_are_perfect() {
        assert!(is_perfect(0x65e4d4ee86638416, 7));
        assert!(is_perfect(0x2643c51ab9dfa5b, 6));
        assert!(!is_perfect(0, 6));
        assert!(!is_perfect(0x2643c51ab9dfa5b, 5));
        let t = table(0x2643c51ab9dfa5b, 6);
        assert!(t.iter().all(|&v| v >= 0));
    }

    #[test]
    fn random_search_finds_seven_bits() {
        let (magic, _) = random_search(7, 1, 10_000_000);
        assert!(is_perfect(magic.expect("7-bit magics are common"), 7));
    }
}
