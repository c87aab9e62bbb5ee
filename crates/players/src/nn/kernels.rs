//! The one dense layer that dominates the network's cost, in two versions
//! that give identical integers: AVX2 (chosen at compile time where the
//! target has it, as `.cargo/config.toml` arranges on x86-64 Linux) and a
//! portable loop.
//!
//! Inputs come in pairs and the weights of a pair are interleaved per output,
//! `row[2j] = w[2p][j]`, `row[2j + 1] = w[2p + 1][j]`, which is exactly what
//! `vpmaddwd` multiplies and adds: one broadcast pair against four registers
//! of weights gives 32 outputs' worth of two multiply-adds each, with no
//! branch on the inputs.

use super::{HIDDEN2, MAX_L2_PAIRS};

/// Layer-2 weights: one row of `2 * HIDDEN2` interleaved weights per pair of
/// inputs, aligned for vector loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct PairRow(pub [i16; 2 * HIDDEN2]);

/// `bias[j] + Σ_p x[2p]·row_p[2j] + x[2p+1]·row_p[2j+1]` for every output `j`.
#[inline]
pub(crate) fn affine_pairs(
    x: &[i16; 2 * MAX_L2_PAIRS],
    rows: &[PairRow; MAX_L2_PAIRS],
    bias: &[i32; HIDDEN2],
) -> [i32; HIDDEN2] {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        affine_pairs_avx2(x, rows, bias)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        affine_pairs_portable(x, rows, bias)
    }
}

/// The portable version of [`affine_pairs`].
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
pub(crate) fn affine_pairs_portable(
    x: &[i16; 2 * MAX_L2_PAIRS],
    rows: &[PairRow; MAX_L2_PAIRS],
    bias: &[i32; HIDDEN2],
) -> [i32; HIDDEN2] {
    let mut out = *bias;
    for (pair, row) in x.chunks_exact(2).zip(rows) {
        let (a, b) = (i32::from(pair[0]), i32::from(pair[1]));
        for (o, w) in out.iter_mut().zip(row.0.chunks_exact(2)) {
            *o += a * i32::from(w[0]) + b * i32::from(w[1]);
        }
    }
    out
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline]
fn affine_pairs_avx2(
    x: &[i16; 2 * MAX_L2_PAIRS],
    rows: &[PairRow; MAX_L2_PAIRS],
    bias: &[i32; HIDDEN2],
) -> [i32; HIDDEN2] {
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_load_si256, _mm256_loadu_si256, _mm256_madd_epi16,
        _mm256_set1_epi32, _mm256_storeu_si256,
    };
    const LANES: usize = 8;
    const REGS: usize = HIDDEN2 / LANES;
    let mut out = [0i32; HIDDEN2];
    // SAFETY: AVX2 is enabled for this whole compilation (the cfg above).
    // Every pointer is in bounds of its array: `bias` and `out` hold
    // REGS * LANES i32, a `PairRow` holds REGS * 256 bits and is 32-byte
    // aligned, as `_mm256_load_si256` needs.
    unsafe {
        let mut acc: [__m256i; REGS] =
            std::array::from_fn(|k| _mm256_loadu_si256(bias.as_ptr().add(k * LANES).cast()));
        for (pair, row) in x.chunks_exact(2).zip(rows) {
            let both = (pair[0] as u16 as u32 | (pair[1] as u16 as u32) << 16) as i32;
            let broadcast = _mm256_set1_epi32(both);
            let weights: *const __m256i = row.0.as_ptr().cast();
            for (k, a) in acc.iter_mut().enumerate() {
                let w = _mm256_load_si256(weights.add(k));
                *a = _mm256_add_epi32(*a, _mm256_madd_epi16(broadcast, w));
            }
        }
        for (k, a) in acc.iter().enumerate() {
            _mm256_storeu_si256(out.as_mut_ptr().add(k * LANES).cast(), *a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah::Rng;

    #[test]
    fn both_versions_give_the_same_integers() {
        let mut rng = Rng::new(5);
        let mut small = |range: u32| rng.below(2 * range + 1) as i32 - range as i32;
        for _ in 0..200 {
            let x: [i16; 2 * MAX_L2_PAIRS] = std::array::from_fn(|_| small(1024) as i16);
            let rows: Box<[PairRow; MAX_L2_PAIRS]> = Box::new(std::array::from_fn(|_| {
                PairRow(std::array::from_fn(|_| small(8192) as i16))
            }));
            let bias: [i32; HIDDEN2] = std::array::from_fn(|_| small(1 << 20));
            let expected = affine_pairs_portable(&x, &rows, &bias);
            assert_eq!(affine_pairs(&x, &rows, &bias), expected);
            // And the portable loop is the plain definition.
            for (j, &e) in expected.iter().enumerate() {
                let mut sum = i64::from(bias[j]);
                for (i, &xi) in x.iter().enumerate() {
                    sum += i64::from(xi) * i64::from(rows[i / 2].0[2 * j + i % 2]);
                }
                assert_eq!(i64::from(e), sum);
            }
        }
    }
}
