//! Model files on disk: where a model's files live under a model directory and their verification.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{InferError, Result};
use crate::registry::{ModelSpec, PinnedFile};

/// `<model_dir>/<model id>/`: one folder per model id, so versions never overwrite each other.
pub fn model_path(model_dir: &Path, spec: &ModelSpec) -> PathBuf {
    model_dir.join(spec.id)
}

/// Lower-case hex SHA-256 of a file.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = File::open(path).map_err(|e| InferError::Io(path.to_owned(), e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(|e| InferError::Io(path.to_owned(), e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The path of a pinned file of `spec` under `dir`, after checking that it holds the pinned bytes.
pub fn verified_file(spec: &ModelSpec, file: &PinnedFile, dir: &Path) -> Result<PathBuf> {
    let path = dir.join(file.name);
    let meta = match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => m,
        _ => return Err(InferError::MissingFile { model: spec.id.to_owned(), file: file.name, dir: dir.to_owned() }),
    };
    let expected = file.sha256.as_ref().ok_or(InferError::NotPinned { model: spec.id.to_owned(), file: file.name })?;
    let mismatch = |found: String| InferError::HashMismatch {
        model: spec.id.to_owned(),
        path: path.clone(),
        expected: expected.clone(),
        found,
    };
    if let Some(size) = file.size {
        if meta.len() != size {
            return Err(mismatch(format!("not computed ({} bytes, pinned size {size})", meta.len())));
        }
    }
    let found = sha256_file(&path)?;
    if &found != expected {
        return Err(mismatch(found));
    }
    Ok(path)
}
