//! The model's WordPiece tokenizer (HF `tokenizers`, from the pinned tokenizer.json), truncated to
//! the registry's max sequence length.

use std::path::Path;

use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use crate::error::{InferError, Result};

/// Token ids of one input: [CLS] ... [SEP], at most `max_seq_len` long.
pub type TokenIds = Vec<i64>;

pub struct TextTokenizer {
    inner: Tokenizer,
    pad_id: i64,
}

impl TextTokenizer {
    /// Loads tokenizer.json and replaces its own truncation and padding with the registry's.
    pub fn from_file(model: &str, path: &Path, max_seq_len: usize) -> Result<Self> {
        let err = |reason: String| InferError::Tokenizer { model: model.to_owned(), path: path.to_owned(), reason };
        let mut inner = Tokenizer::from_file(path).map_err(|e| err(e.to_string()))?;
        inner
            .with_truncation(Some(TruncationParams {
                max_length: max_seq_len,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| err(e.to_string()))?;
        // Batches are padded by the model, after sorting inputs by length.
        inner.with_padding(None);
        let pad_id = inner.token_to_id("[PAD]").ok_or_else(|| err("vocabulary has no [PAD] token".into()))? as i64;
        Ok(Self { inner, pad_id })
    }

    pub fn pad_id(&self) -> i64 {
        self.pad_id
    }

    /// Token ids of each input, special tokens added. One input after another on the calling thread:
    /// `encode_batch` would hand them to rayon's pool, whose threads then compete with libtorch's for
    /// the cores, and tokenising costs microseconds next to the model's milliseconds.
    pub fn encode(&self, inputs: &[&str]) -> Result<Vec<TokenIds>> {
        inputs
            .iter()
            .map(|input| {
                let e = self.inner.encode(*input, true).map_err(|e| InferError::Tokenize(e.to_string()))?;
                Ok(e.get_ids().iter().map(|&i| i as i64).collect())
            })
            .collect()
    }
}
