//! GFLOP/s of the packed products (`gemm.rs`) against libtorch's `linear` (MKL) on svc-embed-small's
//! four weight shapes, for each vector kernel this CPU runs, at the row counts of short and long
//! passes. `cargo run --release --example gemm_rates [threads]` (with the inference environment of
//! scripts/inference-env.mjs); docs/inference.md gives the figures this backs.
use std::time::Instant;

use svc_infer::gemm::{Kernel, PackedLinear};
use tch::{Device, Kind, Tensor};

fn main() {
    let threads: i32 = std::env::args().nth(1).map_or(1, |t| t.parse().expect("threads is a number"));
    tch::set_num_threads(threads);
    let _guard = tch::no_grad_guard();
    // (out, in) of the fused query-key-value, attention output, intermediate and output projections.
    let shapes = [(1152usize, 384usize), (384, 384), (1536, 384), (384, 1536)];
    let kernels: Vec<Kernel> = [Kernel::Avx512, Kernel::Avx2].into_iter().filter(|k| k.available()).collect();
    println!("{threads} thread(s); GFLOP/s over the four shapes, 2·m·n·k per product");
    print!("| rows |");
    for k in &kernels {
        print!(" packed {} |", k.as_str());
    }
    println!(" libtorch linear |");
    for m in [9usize, 16, 24, 64, 128, 256, 512, 1024, 2048] {
        let iters = (20_000 / m).clamp(8, 400);
        let mut flop = 0f64;
        let mut packed = vec![0f64; kernels.len()];
        let mut libtorch = 0f64;
        for &(n, k) in &shapes {
            let w = Tensor::randn([n as i64, k as i64], (Kind::Float, Device::Cpu));
            let b = Tensor::randn([n as i64], (Kind::Float, Device::Cpu));
            let x = Tensor::randn([m as i64, k as i64], (Kind::Float, Device::Cpu));
            let (wv, bv, xv) = (to_vec(&w), to_vec(&b), to_vec(&x));
            let mut y = vec![0f32; m * n];
            for (i, &kernel) in kernels.iter().enumerate() {
                let p = PackedLinear::with_kernel(&wv, &bv, n, k, kernel);
                p.forward(&xv, None, &mut y, m);
                let t = Instant::now();
                for _ in 0..iters {
                    p.forward(&xv, None, &mut y, m);
                }
                packed[i] += t.elapsed().as_secs_f64();
            }
            let _ = x.linear(&w, Some(&b));
            let t = Instant::now();
            for _ in 0..iters {
                let _ = x.linear(&w, Some(&b));
            }
            libtorch += t.elapsed().as_secs_f64();
            flop += 2.0 * (m * n * k) as f64 * iters as f64;
        }
        print!("| {m} |");
        for s in &packed {
            print!(" {:.1} |", flop / s / 1e9);
        }
        println!(" {:.1} |", flop / libtorch / 1e9);
    }
}

fn to_vec(t: &Tensor) -> Vec<f32> {
    Vec::<f32>::try_from(t.contiguous().view([-1])).expect("fp32 tensor")
}
