//! Vectors of 32-bit lanes for the multi-nonce search: one nonce per lane, written with explicit
//! `std::arch` intrinsics for each instruction set (SSE4.1, AVX2, AVX-512F, NEON) plus a portable
//! array form.
//!
//! The methods are `unsafe` because a vector type may only be used on a CPU that has its
//! instruction set: callers reach them through a function compiled with that `#[target_feature]`,
//! entered only after runtime detection (see `search::SimdPath`). The methods are
//! `#[inline(always)]` so that they are compiled into that function, with its features, rather
//! than called: a call per addition would cost more than the addition.

/// A vector of `N` u32 lanes and the operations the BLAKE3 compression and the target filter need.
pub(crate) trait Lanes: Copy {
    /// Lanes per vector: nonces hashed per compression.
    const N: usize;
    /// Every lane set to `x`.
    unsafe fn splat(x: u32) -> Self;
    /// Lanes `x, x+1, ..., x+N-1` (wrapping).
    unsafe fn counting_from(x: u32) -> Self;
    /// Lanes from the first `N` words of `x` (`x.len() >= N`).
    unsafe fn load(x: &[u32]) -> Self;
    /// Lanes into the first `N` words of `out` (`out.len() >= N`); the tests read hashes with it.
    #[cfg_attr(not(test), allow(dead_code))]
    unsafe fn store(self, out: &mut [u32]);
    unsafe fn add(self, o: Self) -> Self;
    unsafe fn xor(self, o: Self) -> Self;
    unsafe fn or(self, o: Self) -> Self;
    /// Left shift by `bits` (1..=31), the same for every lane.
    unsafe fn shl(self, bits: u32) -> Self;
    /// Logical right shift by `bits` (1..=31), the same for every lane.
    unsafe fn shr(self, bits: u32) -> Self;
    unsafe fn rotr16(self) -> Self;
    unsafe fn rotr12(self) -> Self;
    unsafe fn rotr8(self) -> Self;
    unsafe fn rotr7(self) -> Self;
    /// Bit `i` set when lane `i`, read as the first 4 bytes of a big-endian number (that is, byte
    /// swapped), is at most `bound`: the cheap first test of a hash against the target.
    unsafe fn heads_at_most(self, bound: u32) -> u32;
}

/// The portable form: plain arrays, lane by lane. `[u32; 1]` is the fallback path and the
/// one-state compression used for the midstate and the nonce-free part of round 0.
impl<const N: usize> Lanes for [u32; N] {
    const N: usize = N;
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        [x; N]
    }
    #[inline(always)]
    unsafe fn counting_from(x: u32) -> Self {
        std::array::from_fn(|i| x.wrapping_add(i as u32))
    }
    #[inline(always)]
    unsafe fn load(x: &[u32]) -> Self {
        std::array::from_fn(|i| x[i])
    }
    #[inline(always)]
    unsafe fn store(self, out: &mut [u32]) {
        out[..N].copy_from_slice(&self);
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        std::array::from_fn(|i| self[i].wrapping_add(o[i]))
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        std::array::from_fn(|i| self[i] ^ o[i])
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        std::array::from_fn(|i| self[i] | o[i])
    }
    #[inline(always)]
    unsafe fn shl(self, bits: u32) -> Self {
        self.map(|x| x << bits)
    }
    #[inline(always)]
    unsafe fn shr(self, bits: u32) -> Self {
        self.map(|x| x >> bits)
    }
    #[inline(always)]
    unsafe fn rotr16(self) -> Self {
        self.map(|x| x.rotate_right(16))
    }
    #[inline(always)]
    unsafe fn rotr12(self) -> Self {
        self.map(|x| x.rotate_right(12))
    }
    #[inline(always)]
    unsafe fn rotr8(self) -> Self {
        self.map(|x| x.rotate_right(8))
    }
    #[inline(always)]
    unsafe fn rotr7(self) -> Self {
        self.map(|x| x.rotate_right(7))
    }
    #[inline(always)]
    unsafe fn heads_at_most(self, bound: u32) -> u32 {
        let mut mask = 0;
        for (i, x) in self.iter().enumerate() {
            mask |= u32::from(x.swap_bytes() <= bound) << i;
        }
        mask
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::Lanes;
    use std::arch::x86_64::*;

    /// `pshufb` byte orders, per 16 bytes: rotate each u32 right by 16 bits, by 8 bits, and swap
    /// its bytes. A byte shuffle is one instruction where a rotation by shifts is three.
    const ROTR16: [u8; 16] = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
    const ROTR8: [u8; 16] = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];
    const BSWAP: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
    const COUNT: [u32; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

    #[inline(always)]
    unsafe fn bytes128(order: &[u8; 16]) -> __m128i {
        _mm_loadu_si128(order.as_ptr().cast())
    }

    /// 4 lanes of SSE4.1 (`pshufb` is SSSE3, `pmaxud` SSE4.1).
    #[derive(Clone, Copy)]
    pub(crate) struct Sse41(__m128i);

    impl Lanes for Sse41 {
        const N: usize = 4;
        #[inline(always)]
        unsafe fn splat(x: u32) -> Self {
            Sse41(_mm_set1_epi32(x as i32))
        }
        #[inline(always)]
        unsafe fn counting_from(x: u32) -> Self {
            Sse41(_mm_add_epi32(_mm_set1_epi32(x as i32), _mm_loadu_si128(COUNT.as_ptr().cast())))
        }
        #[inline(always)]
        unsafe fn load(x: &[u32]) -> Self {
            assert!(x.len() >= 4);
            Sse41(_mm_loadu_si128(x.as_ptr().cast()))
        }
        #[inline(always)]
        unsafe fn store(self, out: &mut [u32]) {
            assert!(out.len() >= 4);
            _mm_storeu_si128(out.as_mut_ptr().cast(), self.0)
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            Sse41(_mm_add_epi32(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn xor(self, o: Self) -> Self {
            Sse41(_mm_xor_si128(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn or(self, o: Self) -> Self {
            Sse41(_mm_or_si128(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn shl(self, bits: u32) -> Self {
            Sse41(_mm_sll_epi32(self.0, _mm_cvtsi32_si128(bits as i32)))
        }
        #[inline(always)]
        unsafe fn shr(self, bits: u32) -> Self {
            Sse41(_mm_srl_epi32(self.0, _mm_cvtsi32_si128(bits as i32)))
        }
        #[inline(always)]
        unsafe fn rotr16(self) -> Self {
            Sse41(_mm_shuffle_epi8(self.0, bytes128(&ROTR16)))
        }
        #[inline(always)]
        unsafe fn rotr12(self) -> Self {
            Sse41(_mm_or_si128(_mm_srli_epi32::<12>(self.0), _mm_slli_epi32::<20>(self.0)))
        }
        #[inline(always)]
        unsafe fn rotr8(self) -> Self {
            Sse41(_mm_shuffle_epi8(self.0, bytes128(&ROTR8)))
        }
        #[inline(always)]
        unsafe fn rotr7(self) -> Self {
            Sse41(_mm_or_si128(_mm_srli_epi32::<7>(self.0), _mm_slli_epi32::<25>(self.0)))
        }
        #[inline(always)]
        unsafe fn heads_at_most(self, bound: u32) -> u32 {
            // Unsigned x <= bound  <=>  max(x, bound) == bound.
            let x = _mm_shuffle_epi8(self.0, bytes128(&BSWAP));
            let b = _mm_set1_epi32(bound as i32);
            _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_max_epu32(x, b), b))) as u32
        }
    }

    /// 8 lanes of AVX2.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2(__m256i);

    #[inline(always)]
    unsafe fn bytes256(order: &[u8; 16]) -> __m256i {
        _mm256_broadcastsi128_si256(bytes128(order))
    }

    impl Lanes for Avx2 {
        const N: usize = 8;
        #[inline(always)]
        unsafe fn splat(x: u32) -> Self {
            Avx2(_mm256_set1_epi32(x as i32))
        }
        #[inline(always)]
        unsafe fn counting_from(x: u32) -> Self {
            Avx2(_mm256_add_epi32(_mm256_set1_epi32(x as i32), _mm256_loadu_si256(COUNT.as_ptr().cast())))
        }
        #[inline(always)]
        unsafe fn load(x: &[u32]) -> Self {
            assert!(x.len() >= 8);
            Avx2(_mm256_loadu_si256(x.as_ptr().cast()))
        }
        #[inline(always)]
        unsafe fn store(self, out: &mut [u32]) {
            assert!(out.len() >= 8);
            _mm256_storeu_si256(out.as_mut_ptr().cast(), self.0)
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            Avx2(_mm256_add_epi32(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn xor(self, o: Self) -> Self {
            Avx2(_mm256_xor_si256(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn or(self, o: Self) -> Self {
            Avx2(_mm256_or_si256(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn shl(self, bits: u32) -> Self {
            Avx2(_mm256_sll_epi32(self.0, _mm_cvtsi32_si128(bits as i32)))
        }
        #[inline(always)]
        unsafe fn shr(self, bits: u32) -> Self {
            Avx2(_mm256_srl_epi32(self.0, _mm_cvtsi32_si128(bits as i32)))
        }
        #[inline(always)]
        unsafe fn rotr16(self) -> Self {
            Avx2(_mm256_shuffle_epi8(self.0, bytes256(&ROTR16)))
        }
        #[inline(always)]
        unsafe fn rotr12(self) -> Self {
            Avx2(_mm256_or_si256(_mm256_srli_epi32::<12>(self.0), _mm256_slli_epi32::<20>(self.0)))
        }
        #[inline(always)]
        unsafe fn rotr8(self) -> Self {
            Avx2(_mm256_shuffle_epi8(self.0, bytes256(&ROTR8)))
        }
        #[inline(always)]
        unsafe fn rotr7(self) -> Self {
            Avx2(_mm256_or_si256(_mm256_srli_epi32::<7>(self.0), _mm256_slli_epi32::<25>(self.0)))
        }
        #[inline(always)]
        unsafe fn heads_at_most(self, bound: u32) -> u32 {
            let x = _mm256_shuffle_epi8(self.0, bytes256(&BSWAP));
            let b = _mm256_set1_epi32(bound as i32);
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_max_epu32(x, b), b))) as u32
        }
    }

    /// 16 lanes of AVX-512F: rotations are one instruction (`vprord`), comparisons give a mask.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx512(__m512i);

    impl Lanes for Avx512 {
        const N: usize = 16;
        #[inline(always)]
        unsafe fn splat(x: u32) -> Self {
            Avx512(_mm512_set1_epi32(x as i32))
        }
        #[inline(always)]
        unsafe fn counting_from(x: u32) -> Self {
            Avx512(_mm512_add_epi32(_mm512_set1_epi32(x as i32), _mm512_loadu_epi32(COUNT.as_ptr().cast())))
        }
        #[inline(always)]
        unsafe fn load(x: &[u32]) -> Self {
            assert!(x.len() >= 16);
            Avx512(_mm512_loadu_epi32(x.as_ptr().cast()))
        }
        #[inline(always)]
        unsafe fn store(self, out: &mut [u32]) {
            assert!(out.len() >= 16);
            _mm512_storeu_epi32(out.as_mut_ptr().cast(), self.0)
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            Avx512(_mm512_add_epi32(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn xor(self, o: Self) -> Self {
            Avx512(_mm512_xor_si512(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn or(self, o: Self) -> Self {
            Avx512(_mm512_or_si512(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn shl(self, bits: u32) -> Self {
            Avx512(_mm512_sll_epi32(self.0, _mm_cvtsi32_si128(bits as i32)))
        }
        #[inline(always)]
        unsafe fn shr(self, bits: u32) -> Self {
            Avx512(_mm512_srl_epi32(self.0, _mm_cvtsi32_si128(bits as i32)))
        }
        #[inline(always)]
        unsafe fn rotr16(self) -> Self {
            Avx512(_mm512_ror_epi32::<16>(self.0))
        }
        #[inline(always)]
        unsafe fn rotr12(self) -> Self {
            Avx512(_mm512_ror_epi32::<12>(self.0))
        }
        #[inline(always)]
        unsafe fn rotr8(self) -> Self {
            Avx512(_mm512_ror_epi32::<8>(self.0))
        }
        #[inline(always)]
        unsafe fn rotr7(self) -> Self {
            Avx512(_mm512_ror_epi32::<7>(self.0))
        }
        #[inline(always)]
        unsafe fn heads_at_most(self, bound: u32) -> u32 {
            // AVX-512F has no byte shuffle (that is AVX-512BW): swap bytes within each half-word
            // by shifts and masks, then the half-words by a rotation.
            let x = self.0;
            let hi = _mm512_and_si512(_mm512_srli_epi32::<8>(x), _mm512_set1_epi32(0x00FF_00FF));
            let lo = _mm512_and_si512(_mm512_slli_epi32::<8>(x), _mm512_set1_epi32(0xFF00_FF00u32 as i32));
            let swapped = _mm512_ror_epi32::<16>(_mm512_or_si512(hi, lo));
            u32::from(_mm512_cmple_epu32_mask(swapped, _mm512_set1_epi32(bound as i32)))
        }
    }
}

#[cfg(target_arch = "aarch64")]
pub(crate) mod neon {
    use super::Lanes;
    use std::arch::aarch64::*;

    /// `tbl` byte order rotating each u32 right by 8 bits.
    const ROTR8: [u8; 16] = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];
    const COUNT: [u32; 4] = [0, 1, 2, 3];

    /// 4 lanes of NEON (Advanced SIMD, part of every aarch64 CPU).
    #[derive(Clone, Copy)]
    pub(crate) struct Neon(uint32x4_t);

    impl Lanes for Neon {
        const N: usize = 4;
        #[inline(always)]
        unsafe fn splat(x: u32) -> Self {
            Neon(vdupq_n_u32(x))
        }
        #[inline(always)]
        unsafe fn counting_from(x: u32) -> Self {
            Neon(vaddq_u32(vdupq_n_u32(x), vld1q_u32(COUNT.as_ptr())))
        }
        #[inline(always)]
        unsafe fn load(x: &[u32]) -> Self {
            assert!(x.len() >= 4);
            Neon(vld1q_u32(x.as_ptr()))
        }
        #[inline(always)]
        unsafe fn store(self, out: &mut [u32]) {
            assert!(out.len() >= 4);
            vst1q_u32(out.as_mut_ptr(), self.0)
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            Neon(vaddq_u32(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn xor(self, o: Self) -> Self {
            Neon(veorq_u32(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn or(self, o: Self) -> Self {
            Neon(vorrq_u32(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn shl(self, bits: u32) -> Self {
            Neon(vshlq_u32(self.0, vdupq_n_s32(bits as i32)))
        }
        #[inline(always)]
        unsafe fn shr(self, bits: u32) -> Self {
            // A negative count shifts right.
            Neon(vshlq_u32(self.0, vdupq_n_s32(-(bits as i32))))
        }
        #[inline(always)]
        unsafe fn rotr16(self) -> Self {
            // Swapping the two half-words of each u32 is a rotation by 16.
            Neon(vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(self.0))))
        }
        #[inline(always)]
        unsafe fn rotr12(self) -> Self {
            // Shift left by 20, then shift right by 12 inserting into the same register.
            Neon(vsriq_n_u32::<12>(vshlq_n_u32::<20>(self.0), self.0))
        }
        #[inline(always)]
        unsafe fn rotr8(self) -> Self {
            Neon(vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(self.0), vld1q_u8(ROTR8.as_ptr()))))
        }
        #[inline(always)]
        unsafe fn rotr7(self) -> Self {
            Neon(vsriq_n_u32::<7>(vshlq_n_u32::<25>(self.0), self.0))
        }
        #[inline(always)]
        unsafe fn heads_at_most(self, bound: u32) -> u32 {
            let swapped = vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(self.0)));
            let le = vcleq_u32(swapped, vdupq_n_u32(bound));
            // Almost always no lane passes: test that with one horizontal max before building bits.
            if vmaxvq_u32(le) == 0 {
                return 0;
            }
            let bits = vandq_u32(le, vld1q_u32([1u32, 2, 4, 8].as_ptr()));
            vaddvq_u32(bits)
        }
    }
}
