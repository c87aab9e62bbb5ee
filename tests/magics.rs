//! Every magic, every square, every subset of its relevant mask: the fast
//! lookups equal naive ray casting. Also the shadow table, and blockers off
//! the mask (which the lookups must ignore).

use yolah::attacks::{diagonal_attacks, orthogonal_attacks, queen_attacks, queen_moves, shadow};
use yolah::{Bitboard, Rng, Square};
use yolah_geometry::rays::{relevant_mask, shadow_slow, slider_attacks_slow, subsets, Slider};

fn lookup(slider: Slider, sq: Square, occupied: Bitboard) -> Bitboard {
    match slider {
        Slider::Orthogonal => orthogonal_attacks(sq, occupied),
        Slider::Diagonal => diagonal_attacks(sq, occupied),
    }
}

#[test]
fn every_magic_matches_ray_casting_for_every_occupancy() {
    let mut checked = 0u64;
    for slider in Slider::ALL {
        for sq in Square::all() {
            let mask = relevant_mask(slider, sq);
            for occupied in subsets(mask) {
                assert_eq!(
                    lookup(slider, sq, occupied),
                    slider_attacks_slow(slider, sq, occupied),
                    "{slider:?} {sq} occupancy {occupied:?}"
                );
                checked += 1;
            }
        }
    }
    // 2^bits subsets per mask: the classic 102,400 + 5,248.
    assert_eq!(checked, 107_648);
}

#[test]
fn squares_off_the_mask_do_not_matter() {
    let mut rng = Rng::new(2024);
    for sq in Square::all() {
        for _ in 0..2_000 {
            let occupied = Bitboard(rng.next_u64() & rng.next_u64()) & !sq.bitboard();
            let slow = slider_attacks_slow(Slider::Orthogonal, sq, occupied)
                | slider_attacks_slow(Slider::Diagonal, sq, occupied);
            assert_eq!(queen_attacks(sq, occupied), slow, "{sq} {occupied:?}");
            assert_eq!(queen_moves(sq, occupied), slow & !occupied);
        }
    }
}

#[test]
fn shadow_table_matches_its_reference() {
    for from in Square::all() {
        for to in Square::all() {
            assert_eq!(shadow(from, to), shadow_slow(from, to), "{from} {to}");
        }
    }
}

#[test]
fn shadow_updates_moves_like_a_fresh_lookup() {
    let mut rng = Rng::new(7);
    for _ in 0..20_000 {
        let blockers = Bitboard(rng.next_u64() & rng.next_u64());
        let from = Square::new_masked(rng.below(64));
        let to = Square::new_masked(rng.below(64));
        if blockers.contains(to) || from == to {
            continue;
        }
        let blockers = blockers | from.bitboard();
        assert_eq!(
            queen_moves(from, blockers | to.bitboard()),
            queen_moves(from, blockers) & !shadow(from, to)
        );
    }
}
