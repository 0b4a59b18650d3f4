//! Native execution of the approved inference models (svc-embed-small, svc-embed-medium,
//! svc-classify-small): one BERT encoder on libtorch, configured per model by the registry, with
//! canonical int8 outputs, their BLAKE3 commitments, the spot-check tolerance and FLOPs accounting.

pub mod attention;
pub mod backend;
pub mod bert;
pub mod canonical;
pub mod error;
pub mod files;
pub mod flops;
pub mod gemm;
pub mod model;
pub mod random_weights;
pub mod registry;
pub mod tier;
pub mod tokenize;
pub mod vmath;

pub use backend::{Backend, ResolvedBackend};
pub use canonical::{input_hash, output_hash, quantize, verify, OutputClaim, Tolerance, Verdict};
pub use error::{InferError, Result};
pub use model::{Embedding, Inference, Model, DEFAULT_BATCH_SIZE};
pub use registry::{approved_models, find_model, ModelSpec, Pooling, Task};
pub use tier::{Accelerator, GpuTier};
