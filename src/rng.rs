//! A small, fast, seedable random number generator (xoshiro256++ seeded by
//! SplitMix64). The engine owns it so that random games are reproducible
//! from a seed on every platform and need no initialisation beyond the seed.

/// xoshiro256++: 256 bits of state, period 2^256 - 1.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// One SplitMix64 step: a good 64-bit mix of `x`, used to expand seeds.
#[inline(always)]
pub const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of job `index` (a game, a generation, a pair…) of a run seeded
/// `seed`: every job of a run gets its own independent seed, so jobs can run
/// in any order, on any thread or machine, with the same result.
#[inline]
pub const fn game_seed(seed: u64, index: u64) -> u64 {
    splitmix64(seed ^ splitmix64(index))
}

impl Rng {
    /// A generator for `seed`; different seeds give independent streams.
    pub const fn new(seed: u64) -> Rng {
        let a = splitmix64(seed);
        let b = splitmix64(a);
        let c = splitmix64(b);
        let d = splitmix64(c);
        Rng { s: [a, b, c, d] }
    }

    /// The generator of game `index` of a run seeded `seed`: games can be
    /// played in any order, on any thread, with the same result.
    pub const fn for_game(seed: u64, index: u64) -> Rng {
        Rng::new(game_seed(seed, index))
    }

    /// The next 64 random bits.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (`n > 0`), exactly uniform by Lemire's
    /// multiply-and-reject method.
    #[inline(always)]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let mut m = (self.next_u64() >> 32) * u64::from(n);
        if (m as u32) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u32) < threshold {
                m = (self.next_u64() >> 32) * u64::from(n);
            }
        }
        (m >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut rng = Rng::new(1);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[rng.below(7) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(Rng::new(1).below(1), 0);
    }

    #[test]
    fn seeds_reproduce() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(5).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::for_game(1, 0).next_u64(),
            Rng::for_game(1, 1).next_u64()
        );
    }
}
