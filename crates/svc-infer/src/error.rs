use std::path::PathBuf;

/// Everything that can go wrong between a model id and an output vector.
#[derive(Debug, thiserror::Error)]
pub enum InferError {
    #[error("unknown model `{0}` (approved: svc-embed-small@v1.0, svc-embed-medium@v1.0, svc-classify-small@v1.0)")]
    UnknownModel(String),
    #[error("unknown backend `{0}` (expected cpu, cuda, metal or auto)")]
    UnknownBackend(String),
    #[error("backend {backend} is not available on this machine: {reason}")]
    BackendUnavailable { backend: &'static str, reason: String },
    #[error("{model}: {file} is missing from {dir} (download it first, e.g. `svc-miner models --download {model}`)")]
    MissingFile { model: String, file: &'static str, dir: PathBuf },
    #[error("{model}: {path} has the wrong content: sha256 {found}, pinned {expected}")]
    HashMismatch { model: String, path: PathBuf, expected: String, found: String },
    #[error("{model}: the hash of {file} is not pinned in the registry, so the file cannot be trusted")]
    NotPinned { model: String, file: &'static str },
    #[error("{model}: weights file lacks tensor `{name}`")]
    MissingTensor { model: String, name: String },
    #[error("{model}: weights file has tensor `{name}` that the model does not have (a checkpoint of another shape?)")]
    UnexpectedTensor { model: String, name: String },
    #[error("{model}: tensor `{name}` has shape {found:?}, the model needs {expected:?}")]
    TensorShape { model: String, name: String, expected: Vec<i64>, found: Vec<i64> },
    #[error("{model}: cannot read weights {path}: {reason}")]
    Weights { model: String, path: PathBuf, reason: String },
    #[error("{model}: cannot load tokenizer {path}: {reason}")]
    Tokenizer { model: String, path: PathBuf, reason: String },
    #[error("tokenization failed: {0}")]
    Tokenize(String),
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

pub type Result<T> = std::result::Result<T, InferError>;

impl InferError {
    /// A stable name for the kind of error, for callers in other languages.
    pub fn code(&self) -> &'static str {
        match self {
            InferError::UnknownModel(_) => "UNKNOWN_MODEL",
            InferError::UnknownBackend(_) => "UNKNOWN_BACKEND",
            InferError::BackendUnavailable { .. } => "BACKEND_UNAVAILABLE",
            InferError::MissingFile { .. } => "MISSING_FILE",
            InferError::HashMismatch { .. } => "HASH_MISMATCH",
            InferError::NotPinned { .. } => "NOT_PINNED",
            InferError::MissingTensor { .. } | InferError::UnexpectedTensor { .. } | InferError::TensorShape { .. } => {
                "BAD_WEIGHTS"
            }
            InferError::Weights { .. } => "BAD_WEIGHTS",
            InferError::Tokenizer { .. } => "BAD_TOKENIZER",
            InferError::Tokenize(_) => "TOKENIZE_FAILED",
            InferError::Torch(_) => "TORCH_ERROR",
            InferError::Io(..) => "IO_ERROR",
            InferError::InvalidArgument(_) => "INVALID_ARGUMENT",
        }
    }
}
