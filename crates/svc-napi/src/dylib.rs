//! Loading a shared library by path, for the inference addon's loader: libtorch is found at run time
//! (a `LIBTORCH` directory, the project's cache, or Python's torch package) and loaded here first,
//! so that when the inference addon is loaded next the dynamic linker satisfies its `libtorch_cpu.so`
//! and `libc10.so` entries with the libraries already in the process (they match by soname).

use napi::{Error, Result};
use napi_derive::napi;

/// Loads the shared library at `path` (an absolute path) into the process and keeps it loaded for
/// the life of the process. Fails with the dynamic linker's message when it cannot be loaded.
#[napi]
pub fn load_shared_library(path: String) -> Result<()> {
    open(&path).map_err(|msg| Error::from_reason(format!("cannot load {path}: {msg}")))
}

#[cfg(unix)]
fn open(path: &str) -> std::result::Result<(), String> {
    use std::ffi::{CStr, CString};
    let c_path = CString::new(path).map_err(|_| "the path holds a NUL byte".to_string())?;
    // SAFETY: `c_path` is a valid NUL-terminated string; the handle is deliberately never closed, so
    // the library outlives every addon that resolved its symbols against it.
    let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if !handle.is_null() {
        return Ok(());
    }
    // SAFETY: dlerror returns null or a NUL-terminated message owned by libc, read at once.
    let msg = unsafe { libc::dlerror() };
    Err(if msg.is_null() { "unknown error".to_string() } else { unsafe { CStr::from_ptr(msg) }.to_string_lossy().into_owned() })
}

#[cfg(not(unix))]
fn open(_path: &str) -> std::result::Result<(), String> {
    Err("loading a shared library by path is supported on Linux and macOS only".to_string())
}
