//! The elementwise functions of the CPU path, in a scalar, an AVX2 and an AVX-512 form that perform
//! the same operations in the same order (fused multiply-adds where the vector forms fuse), so that
//! every kernel gives the same bits: `exp` of non-positive arguments, GELU, and a softmax over a row.
//!
//! exp: range reduction `x = n·ln 2 + f` (ln 2 in two parts), a degree-6 polynomial for `e^f`
//! (Cephes' coefficients, about 1 ulp), scaled by `2^n` through the exponent bits. Arguments below
//! -87 are taken as -87 (`e^-87` is 1.6e-38, the bottom of f32's normal range).
//!
//! GELU: `0.5 · x · (1 + erf(x / √2))`, with erf by Abramowitz and Stegun's formula 7.1.26 (absolute
//! error at most 1.5e-7, the approximation libtorch's vectorised CPU GELU uses too).

const LOG2E: f32 = std::f32::consts::LOG2_E;
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// exp's polynomial, highest degree first.
const E: [f32; 6] = [1.987_569_1e-4, 1.398_2e-3, 8.333_452e-3, 4.166_579_6e-2, 0.166_666_65, 0.5];
const MIN_EXP_ARG: f32 = -87.0;
const P: f32 = 0.327_591_1;
const A: [f32; 5] = [0.254_829_6, -0.284_496_74, 1.421_413_7, -1.453_152, 1.061_405_4];
const FRAC_1_SQRT_2: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// `e^x` for `x <= 0`.
pub fn exp(x: f32) -> f32 {
    let e = x.max(MIN_EXP_ARG);
    let n = (e * LOG2E).round_ties_even();
    let f = n.mul_add(-LN2_LO, n.mul_add(-LN2_HI, e));
    let poly = E[0].mul_add(f, E[1]).mul_add(f, E[2]).mul_add(f, E[3]).mul_add(f, E[4]).mul_add(f, E[5]);
    poly.mul_add(f * f, f + 1.0) * f32::from_bits(((n as i32 + 127) << 23) as u32)
}

pub fn gelu(x: f32) -> f32 {
    let z = x * FRAC_1_SQRT_2;
    let t = 1.0 / P.mul_add(z.abs(), 1.0);
    let r = A[4].mul_add(t, A[3]).mul_add(t, A[2]).mul_add(t, A[1]).mul_add(t, A[0]);
    // erf(|z|) = 1 - r·t·exp(-z²), signed as z
    let erf = (-(exp(-(z * z)) * t)).mul_add(r, 1.0).copysign(z);
    0.5 * x * (1.0 + erf)
}

/// `row ← softmax(row)`: the maximum, `e^(x - max)` and their sum in 16 interleaved partial sums
/// (element i into sum i mod 16, as the AVX-512 form's lanes hold them; the AVX2 form keeps two
/// 8-lane halves), the partial sums added pairwise in a fixed order, then every element times
/// `1 / sum`.
pub fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut lanes = [0f32; 16];
    for (i, x) in row.iter_mut().enumerate() {
        *x = exp(*x - max);
        lanes[i % 16] += *x;
    }
    let inv = 1.0 / sum16(lanes);
    for x in row.iter_mut() {
        *x *= inv;
    }
}

/// The 16 partial sums added pairwise: lanes i and i + 8, then i and i + 4, i + 2, i + 1.
fn sum16(mut lanes: [f32; 16]) -> f32 {
    let mut width = 8;
    while width > 0 {
        for i in 0..width {
            lanes[i] += lanes[i + width];
        }
        width /= 2;
    }
    lanes[0]
}

#[cfg(target_arch = "x86_64")]
pub use x86::*;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2,fma")]
    pub fn exp_avx2(x: __m256) -> __m256 {
        let s = _mm256_set1_ps;
        let e = _mm256_max_ps(x, s(MIN_EXP_ARG));
        let n = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_mul_ps(e, s(LOG2E)));
        let f = _mm256_fmadd_ps(n, s(-LN2_LO), _mm256_fmadd_ps(n, s(-LN2_HI), e));
        let mut poly = _mm256_fmadd_ps(s(E[0]), f, s(E[1]));
        poly = _mm256_fmadd_ps(poly, f, s(E[2]));
        poly = _mm256_fmadd_ps(poly, f, s(E[3]));
        poly = _mm256_fmadd_ps(poly, f, s(E[4]));
        poly = _mm256_fmadd_ps(poly, f, s(E[5]));
        let scale = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127))));
        _mm256_mul_ps(_mm256_fmadd_ps(poly, _mm256_mul_ps(f, f), _mm256_add_ps(f, s(1.0))), scale)
    }

    #[target_feature(enable = "avx512f")]
    pub fn exp_avx512(x: __m512) -> __m512 {
        let s = _mm512_set1_ps;
        let e = _mm512_max_ps(x, s(MIN_EXP_ARG));
        let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_ps(e, s(LOG2E)));
        let f = _mm512_fmadd_ps(n, s(-LN2_LO), _mm512_fmadd_ps(n, s(-LN2_HI), e));
        let mut poly = _mm512_fmadd_ps(s(E[0]), f, s(E[1]));
        poly = _mm512_fmadd_ps(poly, f, s(E[2]));
        poly = _mm512_fmadd_ps(poly, f, s(E[3]));
        poly = _mm512_fmadd_ps(poly, f, s(E[4]));
        poly = _mm512_fmadd_ps(poly, f, s(E[5]));
        let scale = _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127))));
        _mm512_mul_ps(_mm512_fmadd_ps(poly, _mm512_mul_ps(f, f), _mm512_add_ps(f, s(1.0))), scale)
    }

    #[target_feature(enable = "avx2,fma")]
    pub fn gelu_avx2(x: __m256) -> __m256 {
        let s = _mm256_set1_ps;
        let sign = s(-0.0);
        let z = _mm256_mul_ps(x, s(FRAC_1_SQRT_2));
        let t = _mm256_div_ps(s(1.0), _mm256_fmadd_ps(s(P), _mm256_andnot_ps(sign, z), s(1.0)));
        let mut r = _mm256_fmadd_ps(s(A[4]), t, s(A[3]));
        r = _mm256_fmadd_ps(r, t, s(A[2]));
        r = _mm256_fmadd_ps(r, t, s(A[1]));
        r = _mm256_fmadd_ps(r, t, s(A[0]));
        let exp = exp_avx2(_mm256_xor_ps(_mm256_mul_ps(z, z), sign));
        let magnitude = _mm256_fmadd_ps(_mm256_xor_ps(_mm256_mul_ps(exp, t), sign), r, s(1.0));
        let erf = _mm256_or_ps(_mm256_andnot_ps(sign, magnitude), _mm256_and_ps(sign, z));
        _mm256_mul_ps(_mm256_mul_ps(s(0.5), x), _mm256_add_ps(s(1.0), erf))
    }

    #[target_feature(enable = "avx512f")]
    pub fn gelu_avx512(x: __m512) -> __m512 {
        let s = _mm512_set1_ps;
        let sign = _mm512_set1_epi32(i32::MIN);
        let bits = _mm512_castps_si512;
        let float = _mm512_castsi512_ps;
        let z = _mm512_mul_ps(x, s(FRAC_1_SQRT_2));
        let t = _mm512_div_ps(s(1.0), _mm512_fmadd_ps(s(P), float(_mm512_andnot_si512(sign, bits(z))), s(1.0)));
        let mut r = _mm512_fmadd_ps(s(A[4]), t, s(A[3]));
        r = _mm512_fmadd_ps(r, t, s(A[2]));
        r = _mm512_fmadd_ps(r, t, s(A[1]));
        r = _mm512_fmadd_ps(r, t, s(A[0]));
        let exp = exp_avx512(float(_mm512_xor_si512(bits(_mm512_mul_ps(z, z)), sign)));
        let magnitude = _mm512_fmadd_ps(float(_mm512_xor_si512(bits(_mm512_mul_ps(exp, t)), sign)), r, s(1.0));
        let erf = _mm512_or_si512(_mm512_andnot_si512(sign, bits(magnitude)), _mm512_and_si512(sign, bits(z)));
        _mm512_mul_ps(_mm512_mul_ps(s(0.5), x), _mm512_add_ps(s(1.0), float(erf)))
    }

    /// `softmax` with 16 lanes (masked at the row's end).
    #[target_feature(enable = "avx512f")]
    pub fn softmax_avx512(row: &mut [f32]) {
        let n = row.len();
        let p = row.as_mut_ptr();
        let mask = |i: usize| -> __mmask16 { if i + 16 <= n { 0xffff } else { (1u16 << (n - i)) - 1 } };
        // SAFETY (every load and store below): masked to the lanes i..min(i + 16, n) of the row.
        unsafe {
            let mut max = _mm512_set1_ps(f32::NEG_INFINITY);
            for i in (0..n).step_by(16) {
                max = _mm512_mask_max_ps(max, mask(i), max, _mm512_maskz_loadu_ps(mask(i), p.add(i)));
            }
            let max = _mm512_set1_ps(_mm512_reduce_max_ps(max));
            let mut sum = _mm512_setzero_ps();
            for i in (0..n).step_by(16) {
                let e = exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask(i), p.add(i)), max));
                _mm512_mask_storeu_ps(p.add(i), mask(i), e);
                sum = _mm512_mask_add_ps(sum, mask(i), sum, e);
            }
            let mut lanes = [0f32; 16];
            _mm512_storeu_ps(lanes.as_mut_ptr(), sum);
            let inv = _mm512_set1_ps(1.0 / sum16(lanes));
            for i in (0..n).step_by(16) {
                _mm512_mask_storeu_ps(p.add(i), mask(i), _mm512_mul_ps(_mm512_maskz_loadu_ps(mask(i), p.add(i)), inv));
            }
        }
    }

    /// `softmax` with two 8-lane halves (lanes 0–7 and 8–15 of each 16 elements); the row's tail
    /// (past the last whole 16) is done element by element into the same partial sums.
    #[target_feature(enable = "avx2,fma")]
    pub fn softmax_avx2(row: &mut [f32]) {
        let n = row.len();
        let whole = n / 16 * 16;
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let p = row.as_mut_ptr();
        let mut lanes = [0f32; 16];
        // SAFETY: i + 16 <= whole <= n for every access of the vector loop.
        unsafe {
            let m = _mm256_set1_ps(max);
            let (mut lo, mut hi) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            for i in (0..whole).step_by(16) {
                let a = exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(p.add(i)), m));
                let b = exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(p.add(i + 8)), m));
                _mm256_storeu_ps(p.add(i), a);
                _mm256_storeu_ps(p.add(i + 8), b);
                lo = _mm256_add_ps(lo, a);
                hi = _mm256_add_ps(hi, b);
            }
            _mm256_storeu_ps(lanes.as_mut_ptr(), lo);
            _mm256_storeu_ps(lanes.as_mut_ptr().add(8), hi);
        }
        for (i, x) in row.iter_mut().enumerate().skip(whole) {
            *x = exp(*x - max);
            lanes[i % 16] += *x;
        }
        let inv = 1.0 / sum16(lanes);
        for x in row.iter_mut() {
            *x *= inv;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_two_ulps_of_the_library_exp() {
        for i in 0..87_000 {
            let x = -(i as f32) * 0.001;
            let (got, want) = (exp(x), (x as f64).exp());
            assert!(((got as f64 - want) / want).abs() <= 2.5e-7, "exp({x}) = {got}, want {want}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_forms_give_the_scalar_bits() {
        use std::arch::x86_64::*;
        let xs: Vec<f32> = (0..4096).map(|i| (i as f32 - 2048.0) * 0.0137).collect();
        let rows: Vec<Vec<f32>> = [1usize, 5, 16, 17, 31, 126, 200].iter().map(|&n| xs[..n].iter().map(|x| x * 3.0).collect()).collect();
        let scalar_gelu: Vec<u32> = xs.iter().map(|&x| gelu(x).to_bits()).collect();
        let scalar_softmax: Vec<Vec<u32>> = rows
            .iter()
            .map(|r| {
                let mut r = r.clone();
                softmax(&mut r);
                r.iter().map(|v| v.to_bits()).collect()
            })
            .collect();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            let mut out = vec![0f32; xs.len()];
            for (i, chunk) in xs.chunks(8).enumerate() {
                // SAFETY: AVX2 and FMA are present (checked above); chunks of 8 fill the vector.
                unsafe { _mm256_storeu_ps(out[i * 8..].as_mut_ptr(), gelu_avx2(_mm256_loadu_ps(chunk.as_ptr()))) };
            }
            assert_eq!(bits(&out), scalar_gelu, "gelu avx2");
            for (r, want) in rows.iter().zip(&scalar_softmax) {
                let mut r = r.clone();
                // SAFETY: AVX2 and FMA are present (checked above).
                unsafe { softmax_avx2(&mut r) };
                assert_eq!(&bits(&r), want, "softmax avx2, {} elements", r.len());
            }
        }
        if is_x86_feature_detected!("avx512f") {
            let mut out = vec![0f32; xs.len()];
            for (i, chunk) in xs.chunks(16).enumerate() {
                // SAFETY: AVX-512F is present (checked above); chunks of 16 fill the vector.
                unsafe { _mm512_storeu_ps(out[i * 16..].as_mut_ptr(), gelu_avx512(_mm512_loadu_ps(chunk.as_ptr()))) };
            }
            assert_eq!(bits(&out), scalar_gelu, "gelu avx512");
            for (r, want) in rows.iter().zip(&scalar_softmax) {
                let mut r = r.clone();
                // SAFETY: AVX-512F is present (checked above).
                unsafe { softmax_avx512(&mut r) };
                assert_eq!(&bits(&r), want, "softmax avx512, {} elements", r.len());
            }
        }
    }

    #[test]
    fn softmax_sums_to_one_and_keeps_order() {
        let mut row: Vec<f32> = (0..126).map(|i| ((i * 37) % 50) as f32 * 0.3 - 7.0).collect();
        let before = row.clone();
        softmax(&mut row);
        let sum: f64 = row.iter().map(|&v| v as f64).sum();
        assert!((sum - 1.0).abs() < 1e-6, "sum {sum}");
        let max = before.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let total: f64 = before.iter().map(|&v| ((v - max) as f64).exp()).sum();
        for (p, x) in row.iter().zip(&before) {
            let want = ((x - max) as f64).exp() / total;
            assert!((*p as f64 - want).abs() <= 1e-6 * want.max(1e-3), "{p} vs {want}");
        }
    }
}
