//! Backends (cpu, cuda, metal, auto) and the device each resolves to on this machine.
//!
//! The addon links only libtorch's CPU libraries, so it loads where no NVIDIA library is installed.
//! libtorch_cuda is opened at run time when the cuda backend is asked for; its CUDA kernels then
//! register themselves with libtorch.

use std::ffi::{CStr, CString};
use std::str::FromStr;
use std::sync::OnceLock;

use tch::Device;

use crate::error::{InferError, Result};
use crate::tier::Accelerator;

/// The backend a user asks for (`--backend` / `SVC_INFERENCE_BACKEND`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Cpu,
    Cuda,
    Metal,
    /// CUDA when it works, else Metal, else CPU.
    Auto,
}

impl FromStr for Backend {
    type Err = InferError;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cpu" => Ok(Backend::Cpu),
            "cuda" => Ok(Backend::Cuda),
            "metal" | "mps" => Ok(Backend::Metal),
            "auto" | "" => Ok(Backend::Auto),
            _ => Err(InferError::UnknownBackend(s.to_owned())),
        }
    }
}

/// A backend that is available here, bound to a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolvedBackend {
    Cpu,
    Cuda(usize),
    Metal,
}

impl ResolvedBackend {
    pub fn as_str(self) -> &'static str {
        match self {
            ResolvedBackend::Cpu => "cpu",
            ResolvedBackend::Cuda(_) => "cuda",
            ResolvedBackend::Metal => "metal",
        }
    }

    pub fn device(self) -> Device {
        match self {
            ResolvedBackend::Cpu => Device::Cpu,
            ResolvedBackend::Cuda(i) => Device::Cuda(i),
            ResolvedBackend::Metal => Device::Mps,
        }
    }
}

/// Picks the device for a requested backend, or says why it cannot be used here.
pub fn resolve(backend: Backend) -> Result<ResolvedBackend> {
    match backend {
        Backend::Cpu => Ok(ResolvedBackend::Cpu),
        Backend::Cuda => cuda().map_err(|reason| InferError::BackendUnavailable { backend: "cuda", reason }),
        Backend::Metal => metal().map_err(|reason| InferError::BackendUnavailable { backend: "metal", reason }),
        Backend::Auto => Ok(cuda().or_else(|_| metal()).unwrap_or(ResolvedBackend::Cpu)),
    }
}

fn metal() -> std::result::Result<ResolvedBackend, String> {
    if cfg!(target_os = "macos") && tch::utils::has_mps() {
        Ok(ResolvedBackend::Metal)
    } else if cfg!(target_os = "macos") {
        Err("libtorch reports no MPS device (Apple Silicon and macOS 12.3+ are needed)".into())
    } else {
        Err("Metal (MPS) exists only on macOS".into())
    }
}

fn cuda() -> std::result::Result<ResolvedBackend, String> {
    load_libtorch_cuda()?;
    if tch::Cuda::is_available() {
        Ok(ResolvedBackend::Cuda(0))
    } else {
        Err("libtorch_cuda loaded but no CUDA device is visible (driver missing or no GPU)".into())
    }
}

fn dlopen_global(path: &str) -> std::result::Result<(), String> {
    let c = CString::new(path).map_err(|e| e.to_string())?;
    // SAFETY: dlopen/dlerror are called with a valid NUL-terminated path; the handle is kept open for
    // the life of the process on purpose (libtorch registers its CUDA kernels on load).
    unsafe {
        let handle = libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL);
        if handle.is_null() {
            let err = libc::dlerror();
            let msg = if err.is_null() { "unknown error".to_owned() } else { CStr::from_ptr(err).to_string_lossy().into_owned() };
            return Err(msg);
        }
    }
    Ok(())
}

/// Opens libtorch_cuda once per process; later calls return the first outcome.
fn load_libtorch_cuda() -> std::result::Result<(), String> {
    static LOADED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            if !cfg!(target_os = "linux") {
                return Err("CUDA builds of libtorch exist for Linux only".into());
            }
            let mut candidates = Vec::new();
            if let Ok(p) = std::env::var("SVC_LIBTORCH_CUDA") {
                candidates.push(p);
            }
            if let Some(dir) = option_env!("SVC_LIBTORCH_LIB") {
                // scripts/setup-inference.mjs links torch-cpu/lib; the full library set sits in torch/lib.
                candidates.push(format!("{dir}/../../torch/lib/libtorch_cuda.so"));
                candidates.push(format!("{dir}/libtorch_cuda.so"));
            }
            candidates.push("libtorch_cuda.so".into());
            let mut errors = Vec::new();
            for c in &candidates {
                match dlopen_global(c) {
                    Ok(()) => return Ok(()),
                    Err(e) => errors.push(e),
                }
            }
            Err(format!(
                "cannot load libtorch_cuda ({}); install the NVIDIA libraries with `node scripts/setup-inference.mjs --cuda`",
                errors.join("; ")
            ))
        })
        .clone()
}

/// Names and memory of the accelerator behind a resolved backend.
pub fn accelerator(backend: ResolvedBackend) -> Accelerator {
    match backend {
        ResolvedBackend::Cpu => Accelerator::None,
        ResolvedBackend::Metal => Accelerator::Unified { name: "Apple GPU (MPS)".into() },
        ResolvedBackend::Cuda(i) => match cuda_device_info(i) {
            Some((name, memory_mb)) => Accelerator::Discrete { name, memory_mb },
            None => Accelerator::Discrete { name: format!("CUDA device {i}"), memory_mb: 0 },
        },
    }
}

/// Name and total memory of a CUDA device, read through the driver API (libcuda).
fn cuda_device_info(index: usize) -> Option<(String, u64)> {
    type CuInit = unsafe extern "C" fn(u32) -> i32;
    type CuDeviceGet = unsafe extern "C" fn(*mut i32, i32) -> i32;
    type CuDeviceGetName = unsafe extern "C" fn(*mut libc::c_char, i32, i32) -> i32;
    type CuDeviceTotalMem = unsafe extern "C" fn(*mut usize, i32) -> i32;
    // SAFETY: the symbols are looked up by their documented names and called with the driver API's
    // signatures; every out-pointer refers to a live local.
    unsafe {
        let lib = libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL);
        if lib.is_null() {
            return None;
        }
        let sym = |name: &CStr| libc::dlsym(lib, name.as_ptr());
        let (init, get, get_name, total) =
            (sym(c"cuInit"), sym(c"cuDeviceGet"), sym(c"cuDeviceGetName"), sym(c"cuDeviceTotalMem_v2"));
        if init.is_null() || get.is_null() || get_name.is_null() || total.is_null() {
            return None;
        }
        let init: CuInit = std::mem::transmute(init);
        let get: CuDeviceGet = std::mem::transmute(get);
        let get_name: CuDeviceGetName = std::mem::transmute(get_name);
        let total: CuDeviceTotalMem = std::mem::transmute(total);
        if init(0) != 0 {
            return None;
        }
        let mut dev = 0i32;
        if get(&mut dev, index as i32) != 0 {
            return None;
        }
        let mut name = [0 as libc::c_char; 256];
        if get_name(name.as_mut_ptr(), name.len() as i32, dev) != 0 {
            return None;
        }
        let mut bytes = 0usize;
        if total(&mut bytes, dev) != 0 {
            return None;
        }
        Some((CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned(), bytes as u64 / (1024 * 1024)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_spec_values() {
        assert_eq!("cpu".parse::<Backend>().unwrap(), Backend::Cpu);
        assert_eq!("CUDA".parse::<Backend>().unwrap(), Backend::Cuda);
        assert_eq!("metal".parse::<Backend>().unwrap(), Backend::Metal);
        assert_eq!("auto".parse::<Backend>().unwrap(), Backend::Auto);
        assert!(matches!("tpu".parse::<Backend>(), Err(InferError::UnknownBackend(_))));
    }

    #[test]
    fn cpu_always_resolves_and_auto_falls_back() {
        assert_eq!(resolve(Backend::Cpu).unwrap(), ResolvedBackend::Cpu);
        let auto = resolve(Backend::Auto).unwrap();
        if !tch::Cuda::is_available() && !tch::utils::has_mps() {
            assert_eq!(auto, ResolvedBackend::Cpu);
        }
    }

    #[test]
    fn metal_is_refused_off_macos() {
        if !cfg!(target_os = "macos") {
            let err = resolve(Backend::Metal).unwrap_err();
            assert!(err.to_string().contains("macOS"), "{err}");
        }
    }
}
