//! Time of one layer's self-attention of svc-embed-small (12 heads of 32) on one thread: the packed
//! per-head path (`attention.rs`) against libtorch's `scaled_dot_product_attention`, at several
//! sequence lengths. `cargo run --release --example attn_rate` (with the inference environment of
//! scripts/inference-env.mjs).
use std::time::Instant;

use svc_infer::attention::attention;
use svc_infer::gemm::Kernel;
use tch::{Device, Kind, Tensor};

fn main() {
    tch::set_num_threads(1);
    let _guard = tch::no_grad_guard();
    let (heads, head_dim) = (12usize, 32usize);
    let hidden = heads * head_dim;
    println!("kernel {}; GFLOP/s = 4·seq²·hidden per layer / time", Kernel::detect().as_str());
    for seq in [16usize, 64, 126, 254, 512] {
        let qkv = Tensor::randn([seq as i64, 3 * hidden as i64], (Kind::Float, Device::Cpu));
        let split = qkv.view([1, seq as i64, 3, heads as i64, head_dim as i64]).permute([2, 0, 3, 1, 4]);
        let iters = (200_000 / seq).clamp(20, 4000);
        let time = |f: &dyn Fn() -> Tensor| {
            let _ = f();
            let t = Instant::now();
            for _ in 0..iters {
                let _ = f();
            }
            t.elapsed().as_secs_f64() / iters as f64
        };
        let packed = time(&|| attention(&qkv, &[seq], seq, heads, head_dim, Kernel::detect()));
        let sdpa = time(&|| {
            Tensor::scaled_dot_product_attention(&split.get(0), &split.get(1), &split.get(2), None::<&Tensor>, 0.0, false, None, false)
                .transpose(1, 2)
                .reshape([seq as i64, hidden as i64])
        });
        let flop = 4.0 * (seq * seq * hidden) as f64;
        println!(
            "seq {seq}: packed {:.1} us ({:.1} GFLOP/s), sdpa {:.1} us ({:.1} GFLOP/s)",
            packed * 1e6,
            flop / packed / 1e9,
            sdpa * 1e6,
            flop / sdpa / 1e9
        );
    }
}
