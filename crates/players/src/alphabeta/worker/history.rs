//! The history and countermove tables' keys, and the history's update
//! with "gravity" (the `hm` search option).

use yolah::Move;

/// A move's slot in the history and countermove tables, which are
/// indexed by its from and to squares (4,096 slots).
pub(super) fn move_index(m: Move) -> usize {
    usize::from(m.to_u16()) & 4095
}

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
