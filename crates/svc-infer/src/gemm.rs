//! `y = x · Wᵀ + b` (then GELU, or plus a residual) for every product of a forward pass on the CPU.
//!
//! Why: at batch 1 each projection reads its whole weight matrix for a handful of rows, and
//! svc-embed-small's six layers hold 42 MB of fp32 weights. libtorch's `addmm` (MKL sgemm) re-packs
//! the transposed weight on every call and reached about 60 GFLOP/s at 16 rows on the development CPU
//! (AMD EPYC, one thread). Here each weight is packed once, at load, into k-major panels of output
//! columns, so a product streams every weight exactly once, in order, through a register tile of
//! accumulators, prefetching the next panel:
//! - AVX-512F: panels of 32 columns, tiles of up to 12 rows (24 of the 32 zmm registers);
//! - AVX2 + FMA: panels of 16 columns, tiles of up to 6 rows (12 of the 16 ymm registers);
//! - a portable loop elsewhere (and then callers keep libtorch).
//!
//! The kernel is picked once, at run time, from the CPU. A product's rows are split into the fewest
//! tiles of near-equal height (a tile of one row costs nearly a full pass over the panel), and long
//! products run in blocks of 128 rows, whose inputs stay in L2 while the panels stream past: on the
//! development CPU (Zen 4) 108–114 GFLOP/s per core from 9 to 2,048 rows against MKL's 53–98
//! (`examples/gemm_rates.rs`; docs/inference.md).
//!
//! Precision: fp32 multiply-adds in k order starting from the bias, one rounding per FMA, in every
//! kernel, so the kernels give the same bits (tested) and differ from MKL's summation order by a few
//! ulps, far below the verification tolerance. GELU is computed in the store with the same
//! operations in every kernel (`vmath.rs`).
//!
//! Threads: the output panels are split over the threads of libtorch's own OpenMP team (libgomp's
//! `GOMP_parallel`, the entry point of `#pragma omp parallel`), so these products use exactly the
//! threads that `set_threads` gives libtorch and no second pool competes with it for the cores.

use std::ffi::c_void;

use crate::vmath;
use std::sync::OnceLock;

/// Which vector kernel multiplies the packed panels. Chosen once per process from the CPU (runtime
/// detection); every kernel sums each output in the same order (bias, then one FMA per k, in k
/// order), so all of them give bit-identical results and a proof never depends on the CPU's kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512F: panels of 32 columns (two zmm vectors), tiles of up to 12 rows (24 accumulators of
    /// the 32 zmm registers).
    Avx512,
    /// AVX2 + FMA: panels of 16 columns (two ymm vectors), tiles of up to 6 rows (12 accumulators of
    /// the 16 ymm registers).
    Avx2,
    /// Portable loop (callers keep libtorch instead: see `fast_kernel`).
    Scalar,
}

impl Kernel {
    /// The kernel of this process: the best this CPU runs, or a lesser one named by the environment
    /// variable `SVC_INFER_CPU_KERNEL` (`avx2+fma` or `scalar`; for measuring one path against another
    /// on the same machine). A name this CPU cannot run, or no kernel's name, is reported on stderr
    /// and ignored.
    pub fn detect() -> Kernel {
        static KERNEL: OnceLock<Kernel> = OnceLock::new();
        *KERNEL.get_or_init(|| {
            let best = Kernel::best();
            match std::env::var("SVC_INFER_CPU_KERNEL") {
                Err(_) => best,
                Ok(name) => match [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar].into_iter().find(|k| k.as_str() == name) {
                    Some(asked) if asked.runs_on(best) => asked,
                    _ => {
                        eprintln!(
                            "svc-infer: SVC_INFER_CPU_KERNEL={name:?} is not a kernel this CPU runs (avx512f, avx2+fma, scalar); using {}",
                            best.as_str()
                        );
                        best
                    }
                },
            }
        })
    }

    /// The best kernel the CPU runs.
    fn best() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") {
                return Kernel::Avx512;
            }
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                return Kernel::Avx2;
            }
        }
        Kernel::Scalar
    }

    /// Whether a CPU whose best kernel is `best` runs `self`.
    fn runs_on(self, best: Kernel) -> bool {
        match self {
            Kernel::Scalar => true,
            Kernel::Avx2 => Kernel::avx2_fma(),
            Kernel::Avx512 => best == Kernel::Avx512,
        }
    }

    fn avx2_fma() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Whether this CPU can run `self`.
    pub fn available(self) -> bool {
        self.runs_on(Kernel::best())
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kernel::Avx512 => "avx512f",
            Kernel::Avx2 => "avx2+fma",
            Kernel::Scalar => "scalar",
        }
    }

    /// Output columns per packed panel.
    fn panel(self) -> usize {
        match self {
            Kernel::Avx512 => 32,
            Kernel::Avx2 | Kernel::Scalar => 16,
        }
    }

    /// The most rows one register tile holds.
    fn max_rows(self) -> usize {
        match self {
            Kernel::Avx512 => 12,
            Kernel::Avx2 | Kernel::Scalar => 6,
        }
    }
}

/// Rows per block of a long product (a block of 128 rows of 1,536 inputs is 768 KiB).
const ROW_BLOCK: usize = 128;

/// Splits `m` rows into the fewest tiles of at most `max` rows, their heights differing by at most
/// one (13 rows at 6 a tile: 5, 4, 4 rather than 6, 6, 1): every tile streams the whole panel once,
/// so a tile of one row costs nearly as much as a full one.
fn row_tiles(m: usize, max: usize) -> impl Iterator<Item = (usize, usize)> {
    let tiles = m.div_ceil(max);
    let (base, extra) = if tiles == 0 { (0, 0) } else { (m / tiles, m % tiles) };
    (0..tiles).scan(0, move |row, t| {
        let height = base + usize::from(t < extra);
        let at = *row;
        *row += height;
        Some((at, height))
    })
}

/// A linear layer's weight `[n, k]` packed into k-major panels of the kernel's width, and its bias.
pub struct PackedLinear {
    n: usize,
    k: usize,
    kernel: Kernel,
    /// `ceil(n / panel)` panels of `k × panel` floats; columns past `n` are zero.
    panels: Vec<f32>,
    /// The bias padded with zeros to whole panels.
    bias: Vec<f32>,
}

impl PackedLinear {
    /// Packs `weight` (row-major `[n, k]`, as nn.Linear stores it) and `bias` (`[n]`) for this CPU's kernel.
    pub fn new(weight: &[f32], bias: &[f32], n: usize, k: usize) -> Self {
        Self::with_kernel(weight, bias, n, k, Kernel::detect())
    }

    /// Packs for `kernel`, which this CPU must be able to run (`Kernel::available`).
    pub fn with_kernel(weight: &[f32], bias: &[f32], n: usize, k: usize, kernel: Kernel) -> Self {
        assert_eq!(weight.len(), n * k, "weight is [n, k]");
        assert_eq!(bias.len(), n, "bias is [n]");
        let mut packed = Self::from_fn(n, k, kernel, |j, kk| weight[j * k + kk]);
        packed.bias[..n].copy_from_slice(bias);
        packed
    }

    /// Packs the `[n, k]` matrix whose element `(j, kk)` is `w(j, kk)`, with a zero bias: for products
    /// whose right-hand side is not a stored weight (attention's keys and values).
    pub fn from_fn(n: usize, k: usize, kernel: Kernel, w: impl Fn(usize, usize) -> f32) -> Self {
        assert!(kernel.available(), "this CPU cannot run the {} kernel", kernel.as_str());
        let width = kernel.panel();
        let count = n.div_ceil(width);
        let mut panels = vec![0f32; count * k * width];
        for p in 0..count {
            let panel = &mut panels[p * k * width..(p + 1) * k * width];
            for kk in 0..k {
                for j in 0..width.min(n - p * width) {
                    panel[kk * width + j] = w(p * width + j, kk);
                }
            }
        }
        Self { n, k, kernel, panels, bias: vec![0f32; count * width] }
    }

    pub fn out_features(&self) -> usize {
        self.n
    }

    pub fn in_features(&self) -> usize {
        self.k
    }

    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// `y[m, n] = x[m, k] · Wᵀ + b (+ residual[m, n])`, all row-major and contiguous.
    pub fn forward(&self, x: &[f32], residual: Option<&[f32]>, y: &mut [f32], m: usize) {
        assert_eq!(x.len(), m * self.k, "x is [m, k]");
        assert_eq!(y.len(), m * self.n, "y is [m, n]");
        if let Some(r) = residual {
            assert_eq!(r.len(), m * self.n, "residual is [m, n]");
        }
        self.product(x, residual, y, m, false);
    }

    /// `y[m, n] = GELU(x[m, k] · Wᵀ + b)` (the exact, erf form), all row-major and contiguous: BERT's
    /// intermediate layer with its activation applied in the kernel's store, not in a second pass.
    pub fn forward_gelu(&self, x: &[f32], y: &mut [f32], m: usize) {
        assert_eq!(x.len(), m * self.k, "x is [m, k]");
        assert_eq!(y.len(), m * self.n, "y is [m, n]");
        self.product(x, None, y, m, true);
    }

    /// Runs one product over the team's threads, each computing its share of the panels.
    fn product(&self, x: &[f32], residual: Option<&[f32]>, y: &mut [f32], m: usize, gelu: bool) {
        let job = Job {
            linear: self,
            x: x.as_ptr(),
            ldx: self.k,
            residual: residual.map(<[f32]>::as_ptr),
            y: y.as_mut_ptr(),
            ldy: self.n,
            m,
            gelu,
        };
        parallel_for(self.n.div_ceil(self.kernel.panel()), &|first, last| job.run(first, last));
    }

    /// `y = x · Wᵀ + b` on the calling thread, for `m` rows of `x` `ldx` floats apart, written `ldy`
    /// floats apart: the products of one attention head, whose inputs and outputs are columns of
    /// wider rows.
    ///
    /// # Safety
    /// Rows `0..m` of `x` hold `k` readable floats each and rows of `y` `n` writable floats each,
    /// which no other thread writes during the call.
    pub unsafe fn forward_strided(&self, x: *const f32, ldx: usize, y: *mut f32, ldy: usize, m: usize) {
        let job = Job { linear: self, x, ldx, residual: None, y, ldy, m, gelu: false };
        job.run(0, self.n.div_ceil(self.kernel.panel()));
    }
}

/// Runs `body(first, last)` over the units `0..units`, split in contiguous shares over the threads of
/// libtorch's OpenMP team (as many as `tch::get_num_threads`), or on the calling thread alone.
pub fn parallel_for(units: usize, body: &(dyn Fn(usize, usize) + Sync)) {
    struct Region<'a> {
        units: usize,
        body: &'a (dyn Fn(usize, usize) + Sync),
    }
    extern "C" fn run(data: *mut c_void) {
        let omp = openmp().expect("run only inside GOMP_parallel");
        // SAFETY: `data` is the `Region` passed to GOMP_parallel below, alive until it returns.
        let region = unsafe { &*(data as *const Region) };
        // SAFETY: plain queries of the OpenMP runtime from inside its parallel region.
        let (tid, threads) = unsafe { ((omp.thread_num)() as usize, (omp.num_threads)() as usize) };
        (region.body)(region.units * tid / threads, region.units * (tid + 1) / threads);
    }
    let threads = (tch::get_num_threads().max(1) as usize).min(units);
    match openmp() {
        Some(omp) if threads > 1 => {
            let region = Region { units, body };
            // SAFETY: `run` receives a pointer to `region`, which outlives the call (GOMP_parallel
            // returns when every thread of the team has finished).
            unsafe { (omp.parallel)(run, &region as *const Region as *mut c_void, threads as u32, 0) };
        }
        _ => body(0, units),
    }
}

/// One product, shared by the threads of a team; each writes the output columns of its own panels.
#[derive(Clone, Copy)]
struct Job<'a> {
    linear: &'a PackedLinear,
    /// Row `r` of the input starts at `x + r * ldx`.
    x: *const f32,
    ldx: usize,
    /// Laid out as `y`.
    residual: Option<*const f32>,
    /// Row `r` of the output starts at `y + r * ldy`.
    y: *mut f32,
    ldy: usize,
    m: usize,
    /// Apply GELU to `x · Wᵀ + b` (no residual then).
    gelu: bool,
}

// SAFETY: the threads of one product write disjoint panels of `y` and only read the rest.
unsafe impl Sync for Job<'_> {}

impl Job<'_> {
    /// Computes output panels `first..last` for every row, in blocks of at most `ROW_BLOCK` rows so
    /// that a block's inputs stay in the core's L2 cache while the panels stream past them.
    fn run(&self, first: usize, last: usize) {
        if self.m <= ROW_BLOCK {
            return self.run_block(first, last);
        }
        for (row, height) in row_tiles(self.m, ROW_BLOCK) {
            let offset = row * self.ldy;
            let block = Job {
                // SAFETY (for the offsets): rows row..row+height exist in x, y and the residual.
                x: self.x.wrapping_add(row * self.ldx),
                residual: self.residual.map(|r| r.wrapping_add(offset)),
                y: self.y.wrapping_add(offset),
                m: height,
                ..*self
            };
            block.run_block(first, last);
        }
    }

    fn run_block(&self, first: usize, last: usize) {
        match self.linear.kernel {
            // SAFETY: `from_fn` checked that the CPU runs the kernel; the callers sized x, y and the residual.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.run_avx512(first, last) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.run_avx2(first, last) },
            _ => self.run_scalar(first, last),
        }
    }

    fn run_scalar(&self, first: usize, last: usize) {
        let (k, width) = (self.linear.k, self.linear.kernel.panel());
        for p in first..last {
            let panel = &self.linear.panels[p * k * width..(p + 1) * k * width];
            for row in 0..self.m {
                // SAFETY: row < m, so the row holds k floats (the callers' contract).
                let x = unsafe { std::slice::from_raw_parts(self.x.add(row * self.ldx), k) };
                let mut out = [0f32; 32];
                for (j, o) in out.iter_mut().enumerate().take(width) {
                    let mut acc = self.linear.bias[p * width + j];
                    for (kk, &xv) in x.iter().enumerate() {
                        acc = xv.mul_add(panel[kk * width + j], acc);
                    }
                    *o = if self.gelu { vmath::gelu(acc) } else { acc };
                }
                // SAFETY: this row's columns of panel p belong to this thread only.
                unsafe { self.store(row, p, &out[..width]) };
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_avx2(&self, first: usize, last: usize) {
        use std::arch::x86_64::*;
        const W: usize = 16;
        let k = self.linear.k;
        for p in first..last {
            let panel = self.linear.panels.as_ptr().add(p * k * W);
            // While this panel is multiplied (from the cache after the first rows), the next one is
            // fetched from memory: one 64-byte line per k step, the whole panel in one pass.
            let next = if p + 1 < last { panel.add(k * W) } else { panel };
            let bias = self.linear.bias.as_ptr().add(p * W);
            for (row, height) in row_tiles(self.m, Kernel::Avx2.max_rows()) {
                let x = self.x.add(row * self.ldx);
                let full = (p + 1) * W <= self.linear.n;
                macro_rules! tile {
                    ($r:literal) => {{
                        let acc = tile_avx2::<$r>(x, self.ldx, k, panel, next, bias);
                        for (r, a) in acc.iter().enumerate() {
                            let (a0, a1) = if self.gelu { (vmath::gelu_avx2(a[0]), vmath::gelu_avx2(a[1])) } else { (a[0], a[1]) };
                            if full {
                                // Straight from the registers (plus the residual).
                                let y = self.y.add((row + r) * self.ldy + p * W);
                                let (mut v0, mut v1) = (a0, a1);
                                if let Some(res) = self.residual {
                                    let res = res.add((row + r) * self.ldy + p * W);
                                    v0 = _mm256_add_ps(v0, _mm256_loadu_ps(res));
                                    v1 = _mm256_add_ps(v1, _mm256_loadu_ps(res.add(8)));
                                }
                                _mm256_storeu_ps(y, v0);
                                _mm256_storeu_ps(y.add(8), v1);
                            } else {
                                let mut out = [0f32; W];
                                _mm256_storeu_ps(out.as_mut_ptr(), a0);
                                _mm256_storeu_ps(out.as_mut_ptr().add(8), a1);
                                self.store(row + r, p, &out);
                            }
                        }
                    }};
                }
                match height {
                    6 => tile!(6),
                    5 => tile!(5),
                    4 => tile!(4),
                    3 => tile!(3),
                    2 => tile!(2),
                    _ => tile!(1),
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn run_avx512(&self, first: usize, last: usize) {
        const W: usize = 32;
        let k = self.linear.k;
        for p in first..last {
            let panel = self.linear.panels.as_ptr().add(p * k * W);
            let next = if p + 1 < last { panel.add(k * W) } else { panel };
            let bias = self.linear.bias.as_ptr().add(p * W);
            for (row, height) in row_tiles(self.m, Kernel::Avx512.max_rows()) {
                let x = self.x.add(row * self.ldx);
                macro_rules! tile {
                    ($r:literal) => {{
                        let acc = tile_avx512::<$r>(x, self.ldx, k, panel, next, bias);
                        for (r, a) in acc.iter().enumerate() {
                            self.store_avx512(row + r, p, a);
                        }
                    }};
                }
                match height {
                    12 => tile!(12),
                    11 => tile!(11),
                    10 => tile!(10),
                    9 => tile!(9),
                    8 => tile!(8),
                    7 => tile!(7),
                    6 => tile!(6),
                    5 => tile!(5),
                    4 => tile!(4),
                    3 => tile!(3),
                    2 => tile!(2),
                    _ => tile!(1),
                }
            }
        }
    }

    /// Writes one row's accumulators of panel `p`: GELU if asked, plus the residual, straight from the
    /// registers (masked at the last, partial panel).
    ///
    /// # Safety
    /// As `store`; the CPU has AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn store_avx512(&self, row: usize, p: usize, acc: &[std::arch::x86_64::__m512; 2]) {
        use std::arch::x86_64::*;
        const W: usize = 32;
        let cols = W.min(self.linear.n - p * W);
        // Lanes of each half that hold real columns.
        let masks = [
            if cols >= 16 { 0xffff } else { (1u16 << cols) - 1 },
            if cols >= 32 { 0xffff } else if cols > 16 { (1u16 << (cols - 16)) - 1 } else { 0 },
        ];
        let at = row * self.ldy + p * W;
        for (half, (&a, &mask)) in acc.iter().zip(&masks).enumerate() {
            let mut v = if self.gelu { vmath::gelu_avx512(a) } else { a };
            if let Some(res) = self.residual {
                v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, res.add(at + 16 * half)));
            }
            _mm512_mask_storeu_ps(self.y.add(at + 16 * half), mask, v);
        }
    }

    /// Writes one row's outputs of panel `p` (plus the residual) to `y`, dropping columns past `n`.
    ///
    /// # Safety
    /// `row < m`, and no other thread writes panel `p`.
    unsafe fn store(&self, row: usize, p: usize, out: &[f32]) {
        let n = self.linear.n;
        let width = out.len();
        let cols = width.min(n - p * width);
        let at = row * self.ldy + p * width;
        let y = self.y.add(at);
        match self.residual {
            Some(res) => {
                for j in 0..cols {
                    *y.add(j) = out[j] + *res.add(at + j);
                }
            }
            // SAFETY: columns p*width..p*width+cols of this row exist (the caller's contract).
            None => std::ptr::copy_nonoverlapping(out.as_ptr(), y, cols),
        }
    }
}

/// `R` rows of `x` (row stride `ldx`) times one 16-column panel: 2·R accumulators; each k step loads the
/// panel's 16 weights once and broadcasts one input per row (R = 6 uses 12 + 2 + 1 of the 16 ymm registers).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn tile_avx2<const R: usize>(
    x: *const f32,
    ldx: usize,
    k: usize,
    panel: *const f32,
    next: *const f32,
    bias: *const f32,
) -> [[std::arch::x86_64::__m256; 2]; R] {
    use std::arch::x86_64::*;
    const W: usize = 16;
    let b = [_mm256_loadu_ps(bias), _mm256_loadu_ps(bias.add(8))];
    let mut acc = [b; R];
    for kk in 0..k {
        let w = panel.add(kk * W);
        _mm_prefetch::<_MM_HINT_T1>(next.add(kk * W) as *const i8);
        let (w0, w1) = (_mm256_loadu_ps(w), _mm256_loadu_ps(w.add(8)));
        for (r, a) in acc.iter_mut().enumerate() {
            let v = _mm256_broadcast_ss(&*x.add(r * ldx + kk));
            a[0] = _mm256_fmadd_ps(v, w0, a[0]);
            a[1] = _mm256_fmadd_ps(v, w1, a[1]);
        }
    }
    acc
}

/// `R` rows of `x` times one 32-column panel: 2·R zmm accumulators (R = 12 uses 24 + 2 + 1 of the 32
/// zmm registers). Each k step reads one 128-byte panel row (two cache lines) and prefetches the
/// next panel's two lines.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn tile_avx512<const R: usize>(
    x: *const f32,
    ldx: usize,
    k: usize,
    panel: *const f32,
    next: *const f32,
    bias: *const f32,
) -> [[std::arch::x86_64::__m512; 2]; R] {
    use std::arch::x86_64::*;
    const W: usize = 32;
    let b = [_mm512_loadu_ps(bias), _mm512_loadu_ps(bias.add(16))];
    let mut acc = [b; R];
    for kk in 0..k {
        let w = panel.add(kk * W);
        _mm_prefetch::<_MM_HINT_T1>(next.add(kk * W) as *const i8);
        _mm_prefetch::<_MM_HINT_T1>(next.add(kk * W + 16) as *const i8);
        let (w0, w1) = (_mm512_loadu_ps(w), _mm512_loadu_ps(w.add(16)));
        for (r, a) in acc.iter_mut().enumerate() {
            let v = _mm512_set1_ps(*x.add(r * ldx + kk));
            a[0] = _mm512_fmadd_ps(v, w0, a[0]);
            a[1] = _mm512_fmadd_ps(v, w1, a[1]);
        }
    }
    acc
}

/// Whether products here use a vector kernel (else callers keep libtorch).
pub fn fast_kernel() -> bool {
    Kernel::detect() != Kernel::Scalar
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

    fn random(len: usize, seed: &mut u32) -> Vec<f32> {
        (0..len)
            .map(|_| {
                *seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
                (*seed >> 8) as f32 / (1 << 24) as f32 - 0.5
            })
            .collect()
    }

    fn kernels() -> Vec<Kernel> {
        [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar].into_iter().filter(|k| k.available()).collect()
    }

    const SHAPES: [(usize, usize, usize); 9] =
        [(1, 24, 8), (3, 50, 17), (7, 384, 384), (13, 100, 40), (16, 1152, 384), (5, 7, 1536), (25, 33, 9), (29, 64, 64), (130, 48, 20)];

    #[test]
    fn matches_a_plain_product_for_every_tile_remainder() {
        let mut seed = 1u32;
        for kernel in kernels() {
            for (m, n, k) in SHAPES {
                let x = random(m * k, &mut seed);
                let w = random(n * k, &mut seed);
                let b = random(n, &mut seed);
                let r = random(m * n, &mut seed);
                let packed = PackedLinear::with_kernel(&w, &b, n, k, kernel);
                for residual in [None, Some(r.as_slice())] {
                    let mut y = vec![f32::NAN; m * n];
                    packed.forward(&x, residual, &mut y, m);
                    let want = reference(&x, &w, &b, residual, m, n, k);
                    for (got, want) in y.iter().zip(&want) {
                        assert!((got - want).abs() <= 1e-5 * (k as f32).sqrt(), "{kernel:?} {m}x{n}x{k}: {got} vs {want}");
                    }
                }
            }
        }
    }

    /// Every kernel sums in the same order, so a proof's vector never depends on the CPU's kernel.
    #[test]
    fn every_kernel_gives_the_same_bits() {
        let mut seed = 7u32;
        for (m, n, k) in SHAPES {
            let x = random(m * k, &mut seed);
            let w = random(n * k, &mut seed);
            let b = random(n, &mut seed);
            let r = random(m * n, &mut seed);
            let run = |kernel| {
                let mut y = vec![f32::NAN; m * n];
                PackedLinear::with_kernel(&w, &b, n, k, kernel).forward(&x, Some(&r), &mut y, m);
                y.iter().map(|v| v.to_bits()).collect::<Vec<u32>>()
            };
            let scalar = run(Kernel::Scalar);
            for kernel in kernels() {
                assert_eq!(run(kernel), scalar, "{kernel:?} {m}x{n}x{k}");
            }
        }
    }

    #[test]
    fn row_tiles_are_balanced_and_cover_every_row() {
        for max in [6, 12] {
            for m in 0..200 {
                let tiles: Vec<(usize, usize)> = row_tiles(m, max).collect();
                assert_eq!(tiles.len(), m.div_ceil(max));
                let mut next = 0;
                for &(at, height) in &tiles {
                    assert_eq!(at, next);
                    assert!((1..=max).contains(&height));
                    next += height;
                }
                assert_eq!(next, m);
                let heights = tiles.iter().map(|t| t.1);
                if let (Some(lo), Some(hi)) = (heights.clone().min(), heights.max()) {
                    assert!(hi - lo <= 1, "m {m}: {tiles:?}");
                }
            }
        }
        assert_eq!(row_tiles(13, 6).map(|t| t.1).collect::<Vec<_>>(), vec![5, 4, 4]);
    }

    /// The fused activation against libtorch's exact GELU, and the same bits from every kernel.
    #[test]
    fn gelu_in_the_store_matches_libtorch_and_every_kernel_agrees() {
        let (m, n, k) = (5, 40, 3);
        // Inputs spread over [-12, 12] and around 0, through an identity-like weight.
        let x: Vec<f32> = (0..m * k).map(|i| (i as f32 - 7.0) * 0.8).collect();
        let mut seed = 11u32;
        let w = random(n * k, &mut seed).iter().map(|v| v * 6.0).collect::<Vec<_>>();
        let b = random(n, &mut seed);
        let mut bits: Vec<Vec<u32>> = Vec::new();
        for kernel in kernels() {
            let packed = PackedLinear::with_kernel(&w, &b, n, k, kernel);
            let (mut plain, mut fused) = (vec![0f32; m * n], vec![0f32; m * n]);
            packed.forward(&x, None, &mut plain, m);
            packed.forward_gelu(&x, &mut fused, m);
            let want = Vec::<f32>::try_from(tch::Tensor::from_slice(&plain).gelu("none")).unwrap();
            for ((got, want), pre) in fused.iter().zip(&want).zip(&plain) {
                assert!((got - want).abs() <= 1e-6 * (1.0 + pre.abs()), "{kernel:?}: gelu({pre}) = {got}, libtorch {want}");
            }
            bits.push(fused.iter().map(|v| v.to_bits()).collect());
        }
        assert!(bits.windows(2).all(|w| w[0] == w[1]), "kernels differ");
        // The scalar form alone over a fine grid, tails included.
        for i in -3000..=3000 {
            let v = i as f32 * 0.01;
            let want = tch::Tensor::from(v).gelu("none").double_value(&[]) as f32;
            let got = vmath::gelu(v);
            assert!((got - want).abs() <= 1e-6 * (1.0 + v.abs()), "gelu({v}) = {got}, libtorch {want}");
        }
    }
}
