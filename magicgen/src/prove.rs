//! `magicgen prove` (feature `z3`): whether a black magic of a given index
//! width exists for one square, decided by Z3 over the whole 64-bit
//! multiplier.
//!
//! The multiplier is one 64-bit unknown `m`; each occupancy's product
//! `(occupied | !mask) * m` is built from the empty board's by adding
//! `m << b` for each of its blockers `b`, and its slot is the product's top
//! `bits` bits. Two occupancies with different attacks must land in
//! different slots. Unsat is a proof that no multiplier exists (the search
//! below the mask's width can stop there); sat gives one, checked here
//! against ray casting. The pairs grow with the square of the occupancies:
//! bishops with masks of 5 and 7 bits are decided in seconds to minutes;
//! rooks are out of reach this way.

use std::collections::HashMap;
use yolah_geometry::rays::{relevant_mask, slider_attacks_slow, subsets};
use yolah_geometry::{Slider, Square};
use z3::ast::BV;

/// What Z3 found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A valid magic (checked against every occupancy).
    Found(u64),
    /// No magic of that width exists.
    Impossible,
    /// Z3 stopped without an answer (the timeout).
    Unknown,
}

/// Whether a black magic of `bits` index bits exists for `slider` on
/// `square`, giving Z3 at most `timeout_ms` milliseconds (0: no limit).
pub fn prove(slider: Slider, square: Square, bits: u32, timeout_ms: u32) -> Verdict {
    let mask = relevant_mask(slider, square);
    let occupancies: Vec<u64> = subsets(mask).map(|o| o.0).collect();
    let attacks: Vec<u64> = subsets(mask)
        .map(|o| slider_attacks_slow(slider, square, o).0)
        .collect();
    let solver = z3::Solver::new_for_logic("QF_BV").expect("Z3 knows QF_BV");
    if timeout_ms > 0 {
        let mut params = z3::Params::new();
        params.set_u32("timeout", timeout_ms);
        solver.set_params(&params);
    }
    let m = BV::new_const("m", 64);
    // Products of the occupancies, each from its parent without the
    // lowest blocker: the empty board's is (!mask) * m.
    let mut products: HashMap<u64, BV> = HashMap::new();
    let mut slots: Vec<BV> = Vec::with_capacity(occupancies.len());
    for &o in &occupancies {
        let product = if o == 0 {
            BV::from_u64(!mask.0, 64).bvmul(&m)
        } else {
            let low = u64::from(o.trailing_zeros());
            products[&(o & (o - 1))].bvadd(m.bvshl(BV::from_u64(low, 64)))
        };
        slots.push(product.extract(63, 64 - bits));
        products.insert(o, product);
    }
    for i in 0..slots.len() {
        for j in 0..i {
            if attacks[i] != attacks[j] {
                solver.assert(slots[i].eq(&slots[j]).not());
            }
        }
    }
    match solver.check() {
        z3::SatResult::Unsat => Verdict::Impossible,
        z3::SatResult::Unknown => Verdict::Unknown,
        z3::SatResult::Sat => {
            let magic = solver
                .get_model()
                .and_then(|model| model.eval(&m, true))
                .and_then(|v| v.as_u64())
                .expect("a model gives the multiplier");
            assert!(
                valid(&occupancies, &attacks, !mask.0, magic, bits),
                "Z3's multiplier 0x{magic:016x} collides: a bug in the encoding"
            );
            Verdict::Found(magic)
        }
    }
}

/// Whether `magic` sends occupancies with different attacks to different
/// slots, checked directly.
fn valid(occupancies: &[u64], attacks: &[u64], not_mask: u64, magic: u64, bits: u32) -> bool {
    let mut seen: HashMap<u64, u64> = HashMap::new();
    occupancies.iter().zip(attacks).all(|(&o, &a)| {
        let slot = (o | not_mask).wrapping_mul(magic) >> (64 - bits);
        *seen.entry(slot).or_insert(a) == a
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z3_finds_bishop_b1_at_four_bits_and_proves_three_impossible() {
        let b1 = Square::parse("b1").unwrap();
        match prove(Slider::Diagonal, b1, 4, 0) {
            Verdict::Found(_) => {}
            other => panic!("bishop b1 at 4 bits: {other:?}"),
        }
        // Six attack sets fit eight slots by count, but no multiplier
        // places them.
        assert_eq!(prove(Slider::Diagonal, b1, 3, 0), Verdict::Impossible);
    }
}
