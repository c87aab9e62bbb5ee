//! The second layer on the first layer's 8-bit outputs, in three versions
//! that give identical integers: AVX-512 VNNI (chosen at run time on a CPU
//! that has it), AVX2 (chosen at compile time where the target has it, as
//! `.cargo/config.toml` arranges on x86-64 Linux) and a portable loop.
//!
//! Inputs come in groups of four and a group's weights are interleaved per
//! output, `group[4j + k] = w[4g + k][j]`: one broadcast of four unsigned
//! inputs against two registers of weights is, through `vpmaddubsw` (pairs
//! of 8-bit products added into 16 bits) and `vpmaddwd` by ones (pairs of
//! those added into 32 bits), four multiply-adds for each of the 16
//! outputs. No sum saturates: inputs are at most 127 and weights within
//! ±127 (−128 is never produced), so a pair of products stays within
//! ±32,258.
//!
//! With VNNI a group is two instructions: `vpdpbusd` multiplies the four
//! broadcast inputs by the four weights of each of 8 outputs and adds the
//! four products into that output's 32-bit lane, without saturating. It
//! runs on 256-bit registers (AVX-512VL): on the development machine 512-bit
//! ones were no faster (57 ns a call of 64 groups, as AVX2; 36 ns with
//! 256). The binary is still built for x86-64-v3 (so that valgrind, which
//! does not emulate AVX-512, can run it); the VNNI function alone is
//! compiled for AVX-512, and called only after the CPU said it has it.
//!
//! Every group is computed, zero or not. After the clip, nine in ten of the
//! shipped net's first-layer outputs are zero and 41 of a view's 64 groups
//! are all zero (random games), yet skipping those groups has never made a
//! search faster: not with the neurons sorted by how often they are zero
//! and the groups listed without a branch (docs/search-log.md row 34, 14.7%
//! fewer instructions, no less time), and not on the build of e9be5d7 on an
//! AMD EPYC (Zen 1, AVX2), with the set bits of a mask taken one `tzcnt` at
//! a time: alone, on the same inputs, 46 ns a view against 75, but `yolah
//! analyse --player nn:depth=11` from the start took 0.88 s against 0.82 s
//! with the mask read from the outputs, 0.92 s against 0.79 s with it read
//! from the sums (best of eight runs each, alternately). Not profiled
//! further; the likely causes are weights read out of order instead of in
//! a stream, and loops whose lengths the branch predictor cannot know.

use crate::nn::HIDDEN2;

/// The weights of four inputs for every output, interleaved as the module
/// says, aligned for vector loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Group(pub [i8; 4 * HIDDEN2]);

/// `start[j] + Σ_i x[i]·w[i][j]` for every output `j`, over the inputs `x`
/// (four per group of `groups`).
#[inline]
pub(crate) fn affine(x: &[u8], groups: &[Group], start: [i32; HIDDEN2]) -> [i32; HIDDEN2] {
    assert_eq!(x.len(), 4 * groups.len());
    #[cfg(target_arch = "x86_64")]
    if has_vnni() {
        // SAFETY: the CPU has AVX-512VL and AVX-512 VNNI (just asked).
        return unsafe { affine_vnni(x, groups, start) };
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        affine_avx2(x, groups, start)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        affine_portable(x, groups, start)
    }
}

/// The portable version of [`affine`].
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
pub(crate) fn affine_portable(x: &[u8], groups: &[Group], start: [i32; HIDDEN2]) -> [i32; HIDDEN2] {
    let mut out = start;
    for (four, group) in x.chunks_exact(4).zip(groups) {
        for (j, o) in out.iter_mut().enumerate() {
            let w = &group.0[4 * j..4 * j + 4];
            *o += four
                .iter()
                .zip(w)
                .map(|(&x, &w)| i32::from(x) * i32::from(w))
                .sum::<i32>();
        }
    }
    out
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline]
fn affine_avx2(x: &[u8], groups: &[Group], start: [i32; HIDDEN2]) -> [i32; HIDDEN2] {
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_load_si256, _mm256_loadu_si256, _mm256_madd_epi16,
        _mm256_maddubs_epi16, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_storeu_si256,
    };
    const LANES: usize = 8;
    const _: () = assert!(HIDDEN2 == 2 * LANES);
    let mut out = [0i32; HIDDEN2];
    // SAFETY: AVX2 is enabled for this whole compilation (the cfg above).
    // `start` and `out` hold 2 * LANES i32; a `Group` is two 256-bit
    // registers and 32-byte aligned, as `_mm256_load_si256` needs.
    unsafe {
        let ones = _mm256_set1_epi16(1);
        let mut low = _mm256_loadu_si256(start.as_ptr().cast());
        let mut high = _mm256_loadu_si256(start.as_ptr().add(LANES).cast());
        for (four, group) in x.chunks_exact(4).zip(groups) {
            let inputs = i32::from_le_bytes([four[0], four[1], four[2], four[3]]);
            let broadcast = _mm256_set1_epi32(inputs);
            let weights: *const __m256i = group.0.as_ptr().cast();
            let pairs_low = _mm256_maddubs_epi16(broadcast, _mm256_load_si256(weights));
            let pairs_high = _mm256_maddubs_epi16(broadcast, _mm256_load_si256(weights.add(1)));
            low = _mm256_add_epi32(low, _mm256_madd_epi16(pairs_low, ones));
            high = _mm256_add_epi32(high, _mm256_madd_epi16(pairs_high, ones));
        }
        _mm256_storeu_si256(out.as_mut_ptr().cast(), low);
        _mm256_storeu_si256(out.as_mut_ptr().add(LANES).cast(), high);
    }
    out
}

/// Whether this CPU runs [`affine_vnni`]: std asks the CPU once and keeps
/// the answer, so this is a load and a test.
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_vnni() -> bool {
    std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512vnni")
}

/// [`affine`] with `vpdpbusd` on 256-bit registers: two per group (outputs
/// 0 to 7, then 8 to 15). Four pairs of sums run side by side (groups
/// `4i`, `4i + 1`, … each into its own), so that an instruction does not
/// wait for the one before it (`vpdpbusd` takes five cycles, and two can
/// start in each), and are added at the end.
///
/// # Safety
///
/// The CPU must have AVX-512VL and AVX-512 VNNI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512vl,avx512vnni")]
unsafe fn affine_vnni(x: &[u8], groups: &[Group], start: [i32; HIDDEN2]) -> [i32; HIDDEN2] {
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_dpbusd_epi32, _mm256_load_si256, _mm256_loadu_si256,
        _mm256_set1_epi32, _mm256_setzero_si256, _mm256_storeu_si256,
    };
    const LANES: usize = 8;
    const _: () = assert!(HIDDEN2 == 2 * LANES);
    let group = |[low, high]: [__m256i; 2], four: &[u8], group: &Group| {
        let inputs = _mm256_set1_epi32(i32::from_le_bytes([four[0], four[1], four[2], four[3]]));
        let weights: *const __m256i = group.0.as_ptr().cast();
        // SAFETY: a `Group` is two 256-bit registers, 32-byte aligned.
        let (w_low, w_high) = unsafe {
            (
                _mm256_load_si256(weights),
                _mm256_load_si256(weights.add(1)),
            )
        };
        [
            _mm256_dpbusd_epi32(low, inputs, w_low),
            _mm256_dpbusd_epi32(high, inputs, w_high),
        ]
    };
    // SAFETY: `start` and `out` hold 2 * LANES i32.
    let first = unsafe {
        [
            _mm256_loadu_si256(start.as_ptr().cast()),
            _mm256_loadu_si256(start.as_ptr().add(LANES).cast()),
        ]
    };
    let zero = [_mm256_setzero_si256(); 2];
    let mut sums = [first, zero, zero, zero];
    let (x_sixteens, x_rest) = x.as_chunks::<16>();
    let (g_fours, g_rest) = groups.as_chunks::<4>();
    for (sixteen, four_groups) in x_sixteens.iter().zip(g_fours) {
        for (k, sum) in sums.iter_mut().enumerate() {
            *sum = group(*sum, &sixteen[4 * k..4 * k + 4], &four_groups[k]);
        }
    }
    for (four, g) in x_rest.chunks_exact(4).zip(g_rest) {
        sums[0] = group(sums[0], four, g);
    }
    let half = |h: usize| {
        _mm256_add_epi32(
            _mm256_add_epi32(sums[0][h], sums[1][h]),
            _mm256_add_epi32(sums[2][h], sums[3][h]),
        )
    };
    let mut out = [0i32; HIDDEN2];
    // SAFETY: as above.
    unsafe {
        _mm256_storeu_si256(out.as_mut_ptr().cast(), half(0));
        _mm256_storeu_si256(out.as_mut_ptr().add(LANES).cast(), half(1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah::Rng;

    #[test]
    fn all_versions_give_the_same_integers_at_the_extremes_too() {
        #[cfg(target_arch = "x86_64")]
        if !has_vnni() {
            eprintln!("this CPU has no AVX-512 VNNI: its kernel is not tested here");
        }
        let mut rng = Rng::new(5);
        for round in 0..300 {
            let groups = 1 + rng.below(64) as usize;
            // Random values, and every third round the extremes only.
            let extreme = round % 3 == 0;
            let x: Vec<u8> = (0..4 * groups)
                .map(|_| match extreme {
                    true => [0, 127][rng.below(2) as usize],
                    false => rng.below(128) as u8,
                })
                .collect();
            let w: Vec<Group> = (0..groups)
                .map(|_| {
                    Group(std::array::from_fn(|_| match extreme {
                        true => [-127, 127][rng.below(2) as usize],
                        false => (rng.below(255) as i32 - 127) as i8,
                    }))
                })
                .collect();
            let start: [i32; HIDDEN2] =
                std::array::from_fn(|_| rng.below(1 << 21) as i32 - (1 << 20));
            let expected = affine_portable(&x, &w, start);
            assert_eq!(affine(&x, &w, start), expected);
            #[cfg(target_arch = "x86_64")]
            if has_vnni() {
                // SAFETY: just asked.
                assert_eq!(unsafe { affine_vnni(&x, &w, start) }, expected);
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
            assert_eq!(affine_avx2(&x, &w, start), expected);
            // And the portable loop is the plain definition.
            for (j, &e) in expected.iter().enumerate() {
                let mut sum = i64::from(start[j]);
                for (i, &xi) in x.iter().enumerate() {
                    sum += i64::from(xi) * i64::from(w[i / 4].0[4 * j + i % 4]);
                }
                assert_eq!(i64::from(e), sum);
            }
        }
    }
}
