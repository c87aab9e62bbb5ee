//! The history, continuation history and countermove tables' keys, and
//! the history's update with "gravity" (the `hm` search option).

use yolah::Move;

/// A move's slot in the history and countermove tables, which are
/// indexed by its from and to squares (4,096 slots).
pub(super) fn move_index(m: Move) -> usize {
    usize::from(m.to_u16()) & 4095
}

/// Without the malus a history score never rises above this: the key of
/// a freezing move (`fo`), so that history alone never passes it by much.
pub(super) const HISTORY_CAP: i32 = 1 << 27;

/// How many earlier moves the continuation history follows (`ch`): the
/// opponent's last move and our own before it.
pub(super) const CONTINUATIONS: usize = 2;

/// The continuation history's slots: per earlier move followed, per
/// square that move landed on, per move.
pub(in crate::alphabeta) const CONTINUATION_SLOTS: usize = CONTINUATIONS * 64 * 4096;

/// Move `m`'s slot in the continuation history after a move that landed
/// on `earlier`'s square, `back` plies before it (1 or 2).
pub(super) fn continuation_index(back: usize, earlier: Move, m: Move) -> usize {
    debug_assert!((1..=CONTINUATIONS).contains(&back));
    ((back - 1) * 64 + earlier.to().index()) * 4096 + move_index(m)
}

/// A continuation history score never rises above this, so that with the
/// plain history's (at most [`HISTORY_CAP`]) the sum stays below the
/// countermove's key and the killers'.
pub(super) const CONTINUATION_CAP: i32 = 1 << 25;

/// With the history malus, history scores stay within ± this.
const HISTORY_BOUND: i32 = 1 << 14;

/// `h` changed by `bonus` (a malus if negative), less as `h` nears
/// [`HISTORY_BOUND`] on that side: the change shrinks in proportion, so a
/// score never leaves the bounds and recent cuts weigh more than old ones.
pub(super) fn with_gravity(h: i32, bonus: i32) -> i32 {
    let bonus = bonus.clamp(-HISTORY_BOUND, HISTORY_BOUND);
    h + bonus - h * bonus.abs() / HISTORY_BOUND
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah::Square;

    #[test]
    fn continuation_slots_are_distinct_and_in_range() {
        let mut seen = vec![false; CONTINUATION_SLOTS];
        let square = |i: u32| Square::new_masked(i);
        for back in 1..=CONTINUATIONS {
            for to in 0..64 {
                let earlier = Move::new(square((to + 1) % 64), square(to));
                for bits in 0..4096u16 {
                    let m = Move::from_u16(bits).unwrap_or(Move::PASS);
                    if m.to_u16() != bits {
                        continue;
                    }
                    let i = continuation_index(back, earlier, m);
                    assert!(!seen[i], "slot {i} twice");
                    seen[i] = true;
                }
            }
        }
    }

    #[test]
    fn gravity_keeps_history_within_its_bounds() {
        assert_eq!(with_gravity(0, 9), 9);
        assert_eq!(with_gravity(0, -9), -9);
        // Half-way to the bound, a bonus counts half.
        assert_eq!(with_gravity(HISTORY_BOUND / 2, 100), HISTORY_BOUND / 2 + 50);
        // A malus pulls a high score down more than its size.
        assert_eq!(
            with_gravity(HISTORY_BOUND / 2, -100),
            HISTORY_BOUND / 2 - 150
        );
        // However many bonuses or maluses, however large.
        for bonus in [1, 100, 10_000, i32::MAX / 2] {
            for sign in [1, -1] {
                let mut h = 0;
                for _ in 0..1_000 {
                    h = with_gravity(h, sign * bonus);
                    assert!(h.abs() <= HISTORY_BOUND, "{h} after {bonus}");
                }
            }
        }
    }
}
