//! Self-attention on the CPU, on the packed kernel of `gemm.rs`.
//!
//! Why: svc-embed-small has 12 heads of 32 dimensions. libtorch's CPU `scaled_dot_product_attention`
//! (flash attention over blocks of MKL products) reached about 30–43 GFLOP/s on them at 126 tokens on
//! one core of the development CPU and took 4.6 of a 34.5 ms forward pass. Here each head is two
//! packed products with a softmax between them, one head at a time so that its scores stay in the
//! core's caches: the scores `Q·(K/√d)ᵀ`, each row's softmax (`vmath.rs`), then `P·V`, written
//! straight into the head's columns of the context; heads are split over the threads of libtorch's
//! OpenMP team. About 55–69 GFLOP/s from 64 to 512 tokens, ahead of SDPA at every length measured
//! (`examples/attn_rate.rs`).
//!
//! Precision: fp32 throughout; the sums run in k order as in every packed product, and every kernel
//! gives the same bits. Against SDPA's blocked online softmax the vectors differ in the last bits
//! (the tests compare with SDPA and with sentence-transformers). A padded sequence attends over its
//! own tokens only, which is what SDPA's key mask computes, without the padded keys' work.

use tch::{Device, Kind, Tensor};

use crate::gemm::{self, Kernel, PackedLinear};
use crate::vmath;

/// A raw pointer that the threads of one region share; each writes only its own units.
#[derive(Clone, Copy)]
struct Shared(*mut f32);
// SAFETY: used only inside `attention`, where every thread reads shared inputs and writes disjoint outputs.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// The pointer (a method, so that closures capture the `Shared` and not its raw field).
    fn at(self, offset: usize) -> *mut f32 {
        self.0.wrapping_add(offset)
    }
}

/// `softmax(Q·Kᵀ/√d)·V` for every head of every sequence. `qkv` is `[batch * seq, 3 * hidden]` (each
/// token's queries, keys and values side by side, heads in order within each), fp32, contiguous, on
/// the CPU. Sequence `b` holds `lengths[b] <= seq` tokens followed by padding: its tokens attend to
/// its tokens only (as under SDPA's key mask), and its padded rows of the context are zero (nothing
/// reads them: they are never keys, and pooling skips them). Returns the context
/// `[batch * seq, hidden]`, heads side by side.
pub fn attention(qkv: &Tensor, lengths: &[usize], seq: usize, heads: usize, head_dim: usize, kernel: Kernel) -> Tensor {
    let batch = lengths.len();
    assert!(lengths.iter().all(|&l| l <= seq), "no sequence is longer than the batch's");
    let hidden = heads * head_dim;
    let ld = 3 * hidden;
    assert_eq!(qkv.size(), [(batch * seq) as i64, ld as i64], "qkv is [batch * seq, 3 * hidden]");
    assert!(qkv.kind() == Kind::Float && qkv.device() == Device::Cpu && qkv.is_contiguous());
    let padded = lengths.iter().any(|&l| l < seq);
    let shape = [(batch * seq) as i64, hidden as i64];
    let context = if padded { Tensor::zeros(shape, (Kind::Float, Device::Cpu)) } else { Tensor::empty(shape, (Kind::Float, Device::Cpu)) };
    let input = Shared(qkv.data_ptr() as *mut f32);
    let output = Shared(context.data_ptr() as *mut f32);
    let scale = 1.0 / (head_dim as f32).sqrt();
    gemm::parallel_for(batch * heads, &|first, last| {
        // One head at a time, its seq × seq scores hot in this core's caches from product to product.
        let mut scores = vec![0f32; seq * seq];
        for unit in first..last {
            let (b, h) = (unit / heads, unit % heads);
            let len = lengths[b];
            if len == 0 {
                continue;
            }
            let rows = input.at(b * seq * ld);
            let (q, k, v) = (rows.wrapping_add(h * head_dim), rows.wrapping_add(hidden + h * head_dim), rows.wrapping_add(2 * hidden + h * head_dim));
            // SAFETY: key row j of this head is `head_dim` floats at k + j * ld, inside qkv.
            let keys = PackedLinear::from_fn(len, head_dim, kernel, |j, d| unsafe { *k.add(j * ld + d) } * scale);
            let scores = &mut scores[..len * len];
            // SAFETY: len query rows of head_dim floats, ld apart, inside qkv; `scores` holds len × len.
            unsafe { keys.forward_strided(q, ld, scores.as_mut_ptr(), len, len) };
            for row in scores.chunks_exact_mut(len) {
                softmax(row, kernel);
            }
            // SAFETY: value row kk of this head is `head_dim` floats at v + kk * ld, inside qkv.
            let values = PackedLinear::from_fn(head_dim, len, kernel, |j, kk| unsafe { *v.add(kk * ld + j) });
            // SAFETY: the probabilities are len rows of len floats; the head's context is its head_dim
            // columns of the sequence's first len rows (hidden apart), written by this unit only.
            unsafe { values.forward_strided(scores.as_ptr(), len, output.at(b * seq * hidden + h * head_dim), hidden, len) };
        }
    });
    context
}

/// One row's softmax in the kernel's vector form (all forms give the same bits: `vmath.rs`).
fn softmax(row: &mut [f32], kernel: Kernel) {
    match kernel {
        // SAFETY: the kernel was chosen because this CPU runs it.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { vmath::softmax_avx512(row) },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { vmath::softmax_avx2(row) },
        _ => vmath::softmax(row),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_libtorch_attention_for_every_kernel() {
        let _guard = tch::no_grad_guard();
        tch::manual_seed(3);
        let kernels = [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar].into_iter().filter(|k| k.available());
        for kernel in kernels {
            let cases: [(&[usize], usize, usize, usize); 7] = [
                (&[1], 1, 2, 4),
                (&[7], 7, 3, 8),
                (&[13, 13], 13, 12, 32),
                (&[40, 40, 40], 40, 4, 16),
                (&[128], 128, 12, 32),
                (&[300], 300, 12, 32),
                // Padded: lengths below the batch's, one of them empty.
                (&[9, 20, 3, 0], 20, 12, 32),
            ];
            for (lengths, seq, heads, head_dim) in cases {
                let batch = lengths.len() as i64;
                let hidden = (heads * head_dim) as i64;
                let qkv = Tensor::randn([batch * seq as i64, 3 * hidden], (Kind::Float, Device::Cpu));
                let got = attention(&qkv, lengths, seq, heads, head_dim, kernel);
                let split = qkv.view([batch, seq as i64, 3, heads as i64, head_dim as i64]).permute([2, 0, 3, 1, 4]);
                let keys: Vec<bool> = lengths.iter().flat_map(|&l| (0..seq).map(move |i| i < l)).collect();
                let mask = Tensor::from_slice(&keys).view([batch, 1, 1, seq as i64]);
                let want = Tensor::scaled_dot_product_attention(&split.get(0), &split.get(1), &split.get(2), Some(&mask), 0.0, false, None, false)
                    .transpose(1, 2)
                    .reshape([batch * seq as i64, hidden]);
                // Compare the rows of real tokens; padded rows are zero here.
                let real = Tensor::from_slice(&keys.iter().map(|&k| k as i64 as f32).collect::<Vec<f32>>()).view([-1, 1]);
                let diff = ((&got - &want) * &real).abs().max().double_value(&[]);
                assert!(diff <= 1e-5, "{kernel:?} lengths {lengths:?} seq {seq} heads {heads}x{head_dim}: max |diff| {diff}");
                let pads = (&got * real.ones_like().g_sub(&real)).abs().max().double_value(&[]);
                assert_eq!(pads, 0.0, "padded rows are zero");
            }
        }
    }
}
