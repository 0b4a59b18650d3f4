//! `y = x · Wᵀ + b (+ residual)` for the few-row products of short inputs (batch 1, ~10–100 tokens).
//!
//! Why: with a handful of rows, each projection reads its whole weight matrix for little arithmetic,
//! and svc-embed-small's six layers hold 42 MB of fp32 weights, more than this machine's L3. libtorch's
//! `addmm` (MKL sgemm) re-packs the transposed weight on every call and reached about 60 GFLOP/s at 16
//! rows on the development CPU (AMD EPYC, AVX2, one thread), so the batch-1 forward spent most of its
//! time in the four products of each layer. Here each weight is packed once, at load, into panels of
//! 16 output columns laid out k-major, so a product streams every weight exactly once, in order, and a
//! 6 × 16 register tile of accumulators (AVX2 + FMA) consumes it, prefetching the next panel: about
//! 90 GFLOP/s at 16 to 128 rows on the same core, where MKL reaches 85–90 only from about 64 rows
//! on. Larger products (long or padded batches) keep using libtorch.
//!
//! Precision: fp32 multiply-adds in k order starting from the bias, one rounding per FMA; the result
//! differs from MKL's summation order by a few ulps, far below the verification tolerance (the tests
//! compare both paths and sentence-transformers).
//!
//! Threads: the output panels are split over the threads of libtorch's own OpenMP team (libgomp's
//! `GOMP_parallel`, the entry point of `#pragma omp parallel`), so these products use exactly the
//! threads that `set_threads` gives libtorch and no second pool competes with it for the cores.

use std::ffi::c_void;
use std::sync::OnceLock;

/// Output columns per packed panel: two AVX2 vectors of 8 floats.
const PANEL: usize = 16;
/// Rows per register tile (6 rows × 2 vectors = 12 accumulators of the 16 ymm registers).
const ROWS: usize = 6;

/// A linear layer's weight `[n, k]` packed into k-major panels of `PANEL` columns, and its bias.
pub struct PackedLinear {
    n: usize,
    k: usize,
    /// `ceil(n / PANEL)` panels of `k × PANEL` floats; columns past `n` are zero.
    panels: Vec<f32>,
    bias: Vec<f32>,
}

impl PackedLinear {
    /// Packs `weight` (row-major `[n, k]`, as nn.Linear stores it) and `bias` (`[n]`).
    pub fn new(weight: &[f32], bias: &[f32], n: usize, k: usize) -> Self {
        assert_eq!(weight.len(), n * k, "weight is [n, k]");
        assert_eq!(bias.len(), n, "bias is [n]");
        let count = n.div_ceil(PANEL);
        let mut panels = vec![0f32; count * k * PANEL];
        for p in 0..count {
            let panel = &mut panels[p * k * PANEL..(p + 1) * k * PANEL];
            for j in 0..PANEL.min(n - p * PANEL) {
                let row = &weight[(p * PANEL + j) * k..(p * PANEL + j + 1) * k];
                for (kk, &w) in row.iter().enumerate() {
                    panel[kk * PANEL + j] = w;
                }
            }
        }
        Self { n, k, panels, bias: bias.to_vec() }
    }

    pub fn out_features(&self) -> usize {
        self.n
    }

    pub fn in_features(&self) -> usize {
        self.k
    }

    /// `y[m, n] = x[m, k] · Wᵀ + b (+ residual[m, n])`, all row-major and contiguous.
    pub fn forward(&self, x: &[f32], residual: Option<&[f32]>, y: &mut [f32], m: usize) {
        assert_eq!(x.len(), m * self.k, "x is [m, k]");
        assert_eq!(y.len(), m * self.n, "y is [m, n]");
        if let Some(r) = residual {
            assert_eq!(r.len(), m * self.n, "residual is [m, n]");
        }
        let job = Job { linear: self, x, residual, y: y.as_mut_ptr(), m };
        let panels = self.n.div_ceil(PANEL);
        match openmp() {
            Some(omp) if panels > 1 => {
                let threads = (tch::get_num_threads().max(1) as usize).min(panels);
                if threads > 1 {
                    // SAFETY: `run_job` receives a pointer to `job`, which outlives the call
                    // (GOMP_parallel returns when every thread of the team has finished).
                    unsafe { (omp.parallel)(run_job, &job as *const Job as *mut c_void, threads as u32, 0) };
                    return;
                }
                job.run(0, panels);
            }
            _ => job.run(0, panels),
        }
    }
}

/// One product, shared by the threads of a team; each writes the output columns of its own panels.
struct Job<'a> {
    linear: &'a PackedLinear,
    x: &'a [f32],
    residual: Option<&'a [f32]>,
    y: *mut f32,
    m: usize,
}

unsafe impl Sync for Job<'_> {}

impl Job<'_> {
    /// Computes output panels `first..last` for every row.
    fn run(&self, first: usize, last: usize) {
        #[cfg(target_arch = "x86_64")]
        if avx2_fma() {
            // SAFETY: the CPU has AVX2 and FMA (checked above); slices and `y` are sized by `forward`.
            unsafe { self.run_avx2(first, last) };
            return;
        }
        self.run_scalar(first, last);
    }

    fn run_scalar(&self, first: usize, last: usize) {
        let (n, k) = (self.linear.n, self.linear.k);
        for p in first..last {
            let panel = &self.linear.panels[p * k * PANEL..(p + 1) * k * PANEL];
            for row in 0..self.m {
                let x = &self.x[row * k..(row + 1) * k];
                for j in 0..PANEL.min(n - p * PANEL) {
                    let col = p * PANEL + j;
                    let mut acc = self.linear.bias[col];
                    for (kk, &xv) in x.iter().enumerate() {
                        acc = xv.mul_add(panel[kk * PANEL + j], acc);
                    }
                    if let Some(r) = self.residual {
                        acc += r[row * n + col];
                    }
                    // SAFETY: row < m and col < n; each (row, col) is written by one thread only.
                    unsafe { *self.y.add(row * n + col) = acc };
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_avx2(&self, first: usize, last: usize) {
        let k = self.linear.k;
        for p in first..last {
            let panel = self.linear.panels.as_ptr().add(p * k * PANEL);
            // While this panel is multiplied (from the cache after the first rows), the next one is
            // fetched from memory: one 64-byte line per k step, the whole panel in one pass.
            let next = if p + 1 < last { panel.add(k * PANEL) } else { panel };
            let bias = self.bias_panel(p);
            let mut row = 0;
            while row + ROWS <= self.m {
                self.store(row, p, &tile::<ROWS>(self.x.as_ptr().add(row * k), k, panel, next, &bias));
                row += ROWS;
            }
            if row + 4 <= self.m {
                self.store(row, p, &tile::<4>(self.x.as_ptr().add(row * k), k, panel, next, &bias));
                row += 4;
            }
            while row < self.m {
                self.store(row, p, &tile::<1>(self.x.as_ptr().add(row * k), k, panel, next, &bias));
                row += 1;
            }
        }
    }

    /// The bias of panel `p`, zero past the last column.
    fn bias_panel(&self, p: usize) -> [f32; PANEL] {
        let width = PANEL.min(self.linear.n - p * PANEL);
        let mut bias = [0f32; PANEL];
        bias[..width].copy_from_slice(&self.linear.bias[p * PANEL..p * PANEL + width]);
        bias
    }

    /// Writes the accumulators of rows `row..` in panel `p` (plus the residual) to `y`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn store<const R: usize>(&self, row: usize, p: usize, acc: &[[std::arch::x86_64::__m256; 2]; R]) {
        use std::arch::x86_64::*;
        let n = self.linear.n;
        let width = PANEL.min(n - p * PANEL);
        for (r, a) in acc.iter().enumerate() {
            let mut out = [0f32; PANEL];
            _mm256_storeu_ps(out.as_mut_ptr(), a[0]);
            _mm256_storeu_ps(out.as_mut_ptr().add(8), a[1]);
            let at = (row + r) * n + p * PANEL;
            if let Some(res) = self.residual {
                for j in 0..width {
                    out[j] += res[at + j];
                }
            }
            // SAFETY: columns p*PANEL..p*PANEL+width of this row exist and belong to this thread's panel.
            std::ptr::copy_nonoverlapping(out.as_ptr(), self.y.add(at), width);
        }
    }
}

/// `R` rows of `x` (row stride `k`) times one panel: 2·R accumulators; each k step loads the panel's
/// 16 weights once and broadcasts one input per row (R = 6 uses 12 + 2 + 1 of the 16 ymm registers).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn tile<const R: usize>(
    x: *const f32,
    k: usize,
    panel: *const f32,
    next: *const f32,
    bias: &[f32; PANEL],
) -> [[std::arch::x86_64::__m256; 2]; R] {
    use std::arch::x86_64::*;
    let b = [_mm256_loadu_ps(bias.as_ptr()), _mm256_loadu_ps(bias.as_ptr().add(8))];
    let mut acc = [b; R];
    for kk in 0..k {
        let w = panel.add(kk * PANEL);
        _mm_prefetch::<_MM_HINT_T1>(next.add(kk * PANEL) as *const i8);
        let (w0, w1) = (_mm256_loadu_ps(w), _mm256_loadu_ps(w.add(8)));
        for (r, a) in acc.iter_mut().enumerate() {
            let v = _mm256_broadcast_ss(&*x.add(r * k + kk));
            a[0] = _mm256_fmadd_ps(v, w0, a[0]);
            a[1] = _mm256_fmadd_ps(v, w1, a[1]);
        }
    }
    acc
}

/// The body of the parallel region: this thread's share of the panels.
extern "C" fn run_job(data: *mut c_void) {
    let omp = openmp().expect("run only inside GOMP_parallel");
    // SAFETY: `data` is the `Job` passed to GOMP_parallel by `PackedLinear::forward`.
    let job = unsafe { &*(data as *const Job) };
    // SAFETY: plain queries of the OpenMP runtime from inside its parallel region.
    let (tid, threads) = unsafe { ((omp.thread_num)() as usize, (omp.num_threads)() as usize) };
    let panels = job.linear.n.div_ceil(PANEL);
    let (first, last) = (panels * tid / threads, panels * (tid + 1) / threads);
    job.run(first, last);
}

#[cfg(target_arch = "x86_64")]
fn avx2_fma() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
}

/// Whether products here use the AVX2 + FMA kernel (else a scalar loop, and callers keep libtorch).
pub fn fast_kernel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        avx2_fma()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

struct OpenMp {
    parallel: unsafe extern "C" fn(extern "C" fn(*mut c_void), *mut c_void, u32, u32),
    thread_num: unsafe extern "C" fn() -> i32,
    num_threads: unsafe extern "C" fn() -> i32,
}

/// libgomp as libtorch loaded it (found by its soname, never loaded anew); None elsewhere, and then
/// products run on the calling thread alone.
fn openmp() -> Option<&'static OpenMp> {
    static OMP: OnceLock<Option<OpenMp>> = OnceLock::new();
    OMP.get_or_init(|| {
        if !cfg!(target_os = "linux") {
            return None;
        }
        // Make sure libtorch (and with it libgomp) is loaded before looking.
        let _ = tch::get_num_threads();
        // SAFETY: RTLD_NOLOAD only returns a handle to an already loaded library; the symbols are
        // libgomp's documented entry points with these C signatures. The handle is kept for good.
        unsafe {
            let handle = libc::dlopen(c"libgomp.so.1".as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD);
            if handle.is_null() {
                return None;
            }
            let sym = |name: &std::ffi::CStr| libc::dlsym(handle, name.as_ptr());
            let (p, t, n) = (sym(c"GOMP_parallel"), sym(c"omp_get_thread_num"), sym(c"omp_get_num_threads"));
            if p.is_null() || t.is_null() || n.is_null() {
                return None;
            }
            Some(OpenMp { parallel: std::mem::transmute(p), thread_num: std::mem::transmute(t), num_threads: std::mem::transmute(n) })
        }
    })
    .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(x: &[f32], w: &[f32], b: &[f32], r: Option<&[f32]>, m: usize, n: usize, k: usize) -> Vec<f32> {
        let mut y = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut acc = b[j] as f64;
                for kk in 0..k {
                    acc += x[i * k + kk] as f64 * w[j * k + kk] as f64;
                }
                y[i * n + j] = acc as f32 + r.map_or(0.0, |r| r[i * n + j]);
            }
        }
        y
    }

    #[test]
    fn matches_a_plain_product_for_every_tile_remainder() {
        let mut seed = 1u32;
        let mut next = || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 8) as f32 / (1 << 24) as f32 - 0.5
        };
        for (m, n, k) in [(1, 24, 8), (3, 50, 17), (7, 384, 384), (16, 1152, 384), (5, 7, 1536)] {
            let x: Vec<f32> = (0..m * k).map(|_| next()).collect();
            let w: Vec<f32> = (0..n * k).map(|_| next()).collect();
            let b: Vec<f32> = (0..n).map(|_| next()).collect();
            let r: Vec<f32> = (0..m * n).map(|_| next()).collect();
            let packed = PackedLinear::new(&w, &b, n, k);
            for residual in [None, Some(r.as_slice())] {
                let mut y = vec![f32::NAN; m * n];
                packed.forward(&x, residual, &mut y, m);
                let want = reference(&x, &w, &b, residual, m, n, k);
                for (got, want) in y.iter().zip(&want) {
                    assert!((got - want).abs() <= 1e-5 * (k as f32).sqrt(), "{m}x{n}x{k}: {got} vs {want}");
                }
            }
        }
    }
}
