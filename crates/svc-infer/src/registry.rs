//! The approved models, pinned in one place: architecture, pooling, sequence length, files and hashes.

use crate::bert::BertConfig;
use crate::error::{InferError, Result};
use crate::tier::GpuTier;

/// What a model is approved to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    TextEmbedding,
    TextClassification,
}

impl Task {
    pub fn as_str(self) -> &'static str {
        match self {
            Task::TextEmbedding => "text-embedding",
            Task::TextClassification => "text-classification",
        }
    }
}

/// How token states become one vector (always L2-normalised afterwards).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Mean of the token states under the attention mask (sentence-transformers' mean pooling).
    Mean,
    /// BERT's pooler: dense + tanh over the [CLS] state.
    ClsPooler,
}

impl Pooling {
    pub fn as_str(self) -> &'static str {
        match self {
            Pooling::Mean => "mean",
            Pooling::ClsPooler => "cls-pooler",
        }
    }
}

/// A file of a model, pinned by SHA-256 (the digest the model hub publishes for LFS files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedFile {
    pub name: &'static str,
    /// Lower-case hex; `None` while no verified digest is known, and then the file is refused.
    pub sha256: Option<String>,
    pub size: Option<u64>,
}

impl PinnedFile {
    fn pinned(name: &'static str, sha256: &str, size: u64) -> Self {
        Self { name, sha256: Some(sha256.to_owned()), size: Some(size) }
    }

    fn unpinned(name: &'static str) -> Self {
        Self { name, sha256: None, size: None }
    }

    /// The same file pinned to other content (random-weight checkpoints of a real shape).
    pub fn with_sha256(&self, sha256: String, size: u64) -> Self {
        Self { name: self.name, sha256: Some(sha256), size: Some(size) }
    }
}

/// Everything the node and the miner must agree on for a model id.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSpec {
    /// `<model_name>@v<major.minor>`.
    pub id: &'static str,
    pub task: Task,
    pub config: BertConfig,
    pub pooling: Pooling,
    /// Length of the output vector.
    pub dims: usize,
    /// Tokens per input after truncation, [CLS] and [SEP] included.
    pub max_seq_len: usize,
    pub hub_repo: &'static str,
    pub hub_revision: &'static str,
    pub weights: PinnedFile,
    pub tokenizer: PinnedFile,
    /// Approximate download size (the spec's table).
    pub size_mb: u32,
    pub min_memory_mb: u32,
    /// The lowest GPU tier that may load the model.
    pub tier: GpuTier,
}

impl ModelSpec {
    /// Where the hub serves one of this model's files.
    pub fn file_url(&self, file: &PinnedFile) -> String {
        format!("https://huggingface.co/{}/resolve/{}/{}", self.hub_repo, self.hub_revision, file.name)
    }

    /// The same model with other files pinned: used to run random weights of the real shape.
    pub fn with_files(&self, weights: PinnedFile, tokenizer: PinnedFile) -> Self {
        Self { weights, tokenizer, ..self.clone() }
    }
}

const MINILM_L6: BertConfig = BertConfig {
    layers: 6,
    hidden: 384,
    heads: 12,
    intermediate: 1536,
    vocab: 30522,
    max_positions: 512,
    type_vocab: 2,
    layer_norm_eps: 1e-12,
};

const MINILM_L12: BertConfig = BertConfig { layers: 12, ..MINILM_L6 };

const BERT_BASE: BertConfig = BertConfig {
    layers: 12,
    hidden: 768,
    heads: 12,
    intermediate: 3072,
    vocab: 30522,
    max_positions: 512,
    type_vocab: 2,
    layer_norm_eps: 1e-12,
};

/// The models approved in v2.0, in the spec's order.
pub fn approved_models() -> Vec<ModelSpec> {
    vec![
        ModelSpec {
            id: "svc-embed-small@v1.0",
            task: Task::TextEmbedding,
            config: MINILM_L6,
            pooling: Pooling::Mean,
            dims: 384,
            max_seq_len: 256,
            hub_repo: "sentence-transformers/all-MiniLM-L6-v2",
            hub_revision: "1110a243fdf4706b3f48f1d95db1a4f5529b4d41",
            weights: PinnedFile::pinned(
                "model.safetensors",
                "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
                90_868_376,
            ),
            tokenizer: PinnedFile::pinned(
                "tokenizer.json",
                "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
                466_247,
            ),
            size_mb: 80,
            min_memory_mb: 512,
            tier: GpuTier::Cold,
        },
        ModelSpec {
            id: "svc-embed-medium@v1.0",
            task: Task::TextEmbedding,
            config: MINILM_L12,
            pooling: Pooling::Mean,
            dims: 384,
            max_seq_len: 128,
            hub_repo: "sentence-transformers/all-MiniLM-L12-v2",
            hub_revision: "c004d8e3e901237d8fa7e9fff12774962e391ce5",
            // No verified digest of these two files was available where this registry was written.
            weights: PinnedFile::unpinned("model.safetensors"),
            tokenizer: PinnedFile::unpinned("tokenizer.json"),
            size_mb: 120,
            min_memory_mb: 512,
            tier: GpuTier::Cold,
        },
        ModelSpec {
            id: "svc-classify-small@v1.0",
            task: Task::TextClassification,
            config: BERT_BASE,
            pooling: Pooling::ClsPooler,
            dims: 768,
            max_seq_len: 512,
            hub_repo: "google-bert/bert-base-uncased",
            hub_revision: "86b5e0934494bd15c9632b12f734a8a67f723594",
            weights: PinnedFile::pinned(
                "model.safetensors",
                "68d45e234eb4a928074dfd868cead0219ab85354cc53d20e772753c6bb9169d3",
                440_449_768,
            ),
            tokenizer: PinnedFile::pinned(
                "tokenizer.json",
                "ce64fce797c24f68df90b40a3f74f579b336a493db14bd583fd520ea0d8c9a98",
                466_062,
            ),
            size_mb: 440,
            min_memory_mb: 2048,
            tier: GpuTier::Warm,
        },
    ]
}

/// The approved model with this id.
pub fn find_model(id: &str) -> Result<ModelSpec> {
    approved_models().into_iter().find(|m| m.id == id).ok_or_else(|| InferError::UnknownModel(id.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_a_version_suffix() {
        for m in approved_models() {
            let (name, version) = m.id.split_once("@v").expect("id has @v");
            assert!(!name.is_empty());
            let (major, minor) = version.split_once('.').expect("major.minor");
            assert!(major.parse::<u32>().is_ok() && minor.parse::<u32>().is_ok(), "{}", m.id);
        }
    }

    #[test]
    fn dims_follow_the_pooling() {
        for m in approved_models() {
            assert_eq!(m.dims, m.config.hidden, "{}", m.id);
            assert_eq!(m.config.hidden % m.config.heads, 0, "{}", m.id);
            assert!(m.max_seq_len <= m.config.max_positions);
        }
    }

    #[test]
    fn unknown_ids_are_refused() {
        assert!(matches!(find_model("svc-embed-small"), Err(InferError::UnknownModel(_))));
        assert!(find_model("svc-embed-small@v1.0").is_ok());
    }
}
