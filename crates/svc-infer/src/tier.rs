//! GPU tiers (the spec's Hot / Warm / Cold) and which models a tier may load.

use crate::registry::ModelSpec;

/// Tiers in rising order of capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GpuTier {
    Cold,
    Warm,
    Hot,
}

impl GpuTier {
    pub fn as_str(self) -> &'static str {
        match self {
            GpuTier::Cold => "Cold",
            GpuTier::Warm => "Warm",
            GpuTier::Hot => "Hot",
        }
    }

    /// Whether a machine of this tier may load the model (the model's tier or a higher one).
    pub fn may_load(self, model: &ModelSpec) -> bool {
        self >= model.tier
    }
}

/// The accelerator a model runs on, as far as tiering is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accelerator {
    /// No GPU backend: CPU only.
    None,
    /// A discrete GPU with its own memory (CUDA).
    Discrete { name: String, memory_mb: u64 },
    /// A GPU sharing system memory (Apple Silicon, MPS).
    Unified { name: String },
}

const GB: u64 = 1024;

/// The tier of a machine. The spec gives two columns; this applies each where it is meaningful:
/// discrete GPUs by VRAM (node guide: 16+ GB high-end = Hot, entry GPUs from 4 GB = Warm),
/// unified-memory GPUs by memory (miner guide: 32+ GB = Hot, 16-31 GB = Warm, under 16 GB = Cold),
/// CPU only = Cold. `max_memory_mb` (the miner's --max-memory, 0 = no cap) caps the memory counted.
pub fn classify(accelerator: &Accelerator, system_memory_mb: u64, max_memory_mb: u64) -> GpuTier {
    let cap = |m: u64| if max_memory_mb > 0 { m.min(max_memory_mb) } else { m };
    match accelerator {
        Accelerator::None => GpuTier::Cold,
        Accelerator::Discrete { memory_mb, .. } => match cap(*memory_mb) {
            m if m >= 16 * GB => GpuTier::Hot,
            m if m >= 4 * GB => GpuTier::Warm,
            _ => GpuTier::Cold,
        },
        Accelerator::Unified { .. } => match cap(system_memory_mb) {
            m if m >= 32 * GB => GpuTier::Hot,
            m if m >= 16 * GB => GpuTier::Warm,
            _ => GpuTier::Cold,
        },
    }
}

/// Physical memory of this machine in MiB.
pub fn system_memory_mb() -> u64 {
    // SAFETY: sysconf has no preconditions; it returns -1 when the value is unknown.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    if pages <= 0 || page <= 0 {
        return 0;
    }
    pages as u64 * page as u64 / (1024 * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find_model;

    fn gpu(mb: u64) -> Accelerator {
        Accelerator::Discrete { name: "gpu".into(), memory_mb: mb }
    }

    #[test]
    fn the_spec_table() {
        assert_eq!(classify(&Accelerator::None, 256 * GB, 0), GpuTier::Cold);
        assert_eq!(classify(&gpu(80 * GB), 64 * GB, 0), GpuTier::Hot);
        assert_eq!(classify(&gpu(16 * GB), 64 * GB, 0), GpuTier::Hot);
        assert_eq!(classify(&gpu(8 * GB), 64 * GB, 0), GpuTier::Warm);
        assert_eq!(classify(&gpu(4 * GB), 64 * GB, 0), GpuTier::Warm);
        assert_eq!(classify(&gpu(2 * GB), 64 * GB, 0), GpuTier::Cold);
        let mac = Accelerator::Unified { name: "Apple M2".into() };
        assert_eq!(classify(&mac, 64 * GB, 0), GpuTier::Hot);
        assert_eq!(classify(&mac, 24 * GB, 0), GpuTier::Warm);
        assert_eq!(classify(&mac, 8 * GB, 0), GpuTier::Cold);
    }

    #[test]
    fn max_memory_caps_the_tier() {
        assert_eq!(classify(&gpu(80 * GB), 64 * GB, 6 * GB), GpuTier::Warm);
        assert_eq!(classify(&Accelerator::Unified { name: "m".into() }, 64 * GB, 20 * GB), GpuTier::Warm);
    }

    #[test]
    fn which_models_a_tier_may_load() {
        let small = find_model("svc-embed-small@v1.0").unwrap();
        let medium = find_model("svc-embed-medium@v1.0").unwrap();
        let classify_small = find_model("svc-classify-small@v1.0").unwrap();
        assert!(GpuTier::Cold.may_load(&small) && GpuTier::Cold.may_load(&medium));
        assert!(!GpuTier::Cold.may_load(&classify_small));
        assert!(GpuTier::Warm.may_load(&classify_small) && GpuTier::Hot.may_load(&classify_small));
    }

    #[test]
    fn this_machine_reports_its_memory() {
        assert!(system_memory_mb() > 0);
    }
}
