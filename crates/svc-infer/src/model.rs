//! A loaded model: tokenizer + encoder + pooling on one device, producing canonical outputs.

use std::path::Path;

use tch::{Kind, Tensor};

use crate::backend::{self, Backend, ResolvedBackend};
use crate::bert::BertEncoder;
use crate::canonical::{input_hash, output_hash, quantize};
use crate::error::{InferError, Result};
use crate::files::{model_path, verified_file};
use crate::flops::forward_flops;
use crate::registry::{ModelSpec, Pooling};
use crate::tokenize::{TextTokenizer, TokenIds};

/// The L2-normalised output of one input.
#[derive(Debug, Clone, PartialEq)]
pub struct Embedding {
    pub vector: Vec<f32>,
    /// Tokens the model read ([CLS] and [SEP] included, after truncation).
    pub tokens: usize,
}

/// One input's output in the form a proof carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Inference {
    pub model_id: &'static str,
    pub vector: Vec<f32>,
    pub quantized: Vec<i8>,
    pub input_hash: [u8; 32],
    pub output_hash: [u8; 32],
    pub tokens: usize,
    pub flops: u64,
}

pub struct Model {
    spec: ModelSpec,
    tokenizer: TextTokenizer,
    encoder: BertEncoder,
    backend: ResolvedBackend,
}

/// Inputs per forward pass unless the caller says otherwise (sentence-transformers' default).
pub const DEFAULT_BATCH_SIZE: usize = 32;

/// Padded tokens per forward pass on the CPU. The CPU path works row by row, so a larger pass gains
/// nothing, while its activations (the intermediate product alone is 4 bytes x 1,536 per token)
/// outgrow glibc's largest mmap threshold (32 MB): every pass then maps fresh pages and pays a page
/// fault per 4 KiB (batch 128 of 128 tokens: 2.6 times the time per input of batch 32, measured on a
/// 16-core VM). 4,096 tokens is batch 32 of 128 tokens.
pub const CPU_MAX_PASS_TOKENS: usize = 4096;

impl Model {
    /// Loads `spec` from `<model_dir>/<id>/` on the backend asked for, verifying the pinned files.
    pub fn load(spec: &ModelSpec, model_dir: &Path, backend: Backend) -> Result<Self> {
        Self::load_on(spec, model_dir, backend::resolve(backend)?)
    }

    /// Loads `spec` on an already resolved backend.
    pub fn load_on(spec: &ModelSpec, model_dir: &Path, backend: ResolvedBackend) -> Result<Self> {
        let dir = model_path(model_dir, spec);
        let weights = verified_file(spec, &spec.weights, &dir)?;
        let tokenizer_file = verified_file(spec, &spec.tokenizer, &dir)?;
        let tokenizer = TextTokenizer::from_file(spec.id, &tokenizer_file, spec.max_seq_len)?;
        let tensors = Tensor::read_safetensors(&weights).map_err(|e| InferError::Weights {
            model: spec.id.to_owned(),
            path: weights.clone(),
            reason: e.to_string(),
        })?;
        let with_pooler = spec.pooling == Pooling::ClsPooler;
        let encoder = BertEncoder::from_tensors(spec.id, spec.config, tensors, with_pooler, backend.device())?;
        Ok(Self { spec: spec.clone(), tokenizer, encoder, backend })
    }

    pub fn spec(&self) -> &ModelSpec {
        &self.spec
    }

    pub fn backend(&self) -> ResolvedBackend {
        self.backend
    }

    /// Token ids of each input as this model reads them.
    pub fn tokenize(&self, inputs: &[&str]) -> Result<Vec<TokenIds>> {
        self.tokenizer.encode(inputs)
    }

    /// L2-normalised vectors of `inputs`, in input order, `batch_size` inputs per forward pass.
    pub fn embed(&self, inputs: &[&str], batch_size: usize) -> Result<Vec<Embedding>> {
        if batch_size == 0 {
            return Err(InferError::InvalidArgument("batch size must be at least 1".into()));
        }
        let ids = self.tokenizer.encode(inputs)?;
        // Longest first, so each batch pads to a similar length (as sentence-transformers does).
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids[i].len()));
        let mut out: Vec<Option<Embedding>> = vec![None; ids.len()];
        let _guard = tch::no_grad_guard();
        let max_tokens = if self.backend == ResolvedBackend::Cpu { CPU_MAX_PASS_TOKENS } else { usize::MAX };
        for chunk in batches(&order, &ids, batch_size, max_tokens) {
            let vectors = self.forward_batch(chunk.iter().map(|&i| &ids[i]).collect())?;
            for (&i, vector) in chunk.iter().zip(vectors) {
                out[i] = Some(Embedding { vector, tokens: ids[i].len() });
            }
        }
        Ok(out.into_iter().map(|e| e.expect("every input is in one batch")).collect())
    }

    fn forward_batch(&self, batch: Vec<&TokenIds>) -> Result<Vec<Vec<f32>>> {
        let n = batch.len() as i64;
        let seq = batch.iter().map(|t| t.len()).max().unwrap_or(0) as i64;
        // Batch 1, or a batch of equal lengths: nothing is padded, so no mask is built or applied.
        let padded = batch.iter().any(|t| t.len() as i64 != seq);
        let mut ids = Vec::with_capacity((n * seq) as usize);
        let mut mask = Vec::with_capacity(if padded { (n * seq) as usize } else { 0 });
        for t in &batch {
            ids.extend_from_slice(t);
            ids.extend(std::iter::repeat_n(self.tokenizer.pad_id(), seq as usize - t.len()));
            if padded {
                mask.extend(std::iter::repeat_n(1i64, t.len()));
                mask.extend(std::iter::repeat_n(0i64, seq as usize - t.len()));
            }
        }
        let device = self.encoder.device();
        let ids = Tensor::from_slice(&ids).view([n, seq]).to_device(device);
        let mask = padded.then(|| Tensor::from_slice(&mask).view([n, seq]).to_device(device));
        let states = self.encoder.forward(&ids, mask.as_ref());
        let pooled = match (self.spec.pooling, &mask) {
            (Pooling::Mean, Some(mask)) => {
                let m = mask.unsqueeze(-1).to_kind(Kind::Float);
                let summed = (&states * &m).sum_dim_intlist([1i64].as_slice(), false, Kind::Float);
                summed / m.sum_dim_intlist([1i64].as_slice(), false, Kind::Float).clamp_min(1e-9)
            }
            // Every token counts: the mean over the sequence (an empty input still has [CLS] and [SEP]).
            (Pooling::Mean, None) => states.mean_dim([1i64].as_slice(), false, Kind::Float),
            (Pooling::ClsPooler, _) => self.encoder.pool_cls(&states).expect("loaded with a pooler"),
        };
        let norms = pooled.norm_scalaropt_dim(2.0, [1i64].as_slice(), true).clamp_min(1e-12);
        let unit = (pooled / norms).to_device(tch::Device::Cpu).contiguous();
        let flat = Vec::<f32>::try_from(unit.view([-1]))?;
        Ok(flat.chunks(self.spec.dims).map(|c| c.to_vec()).collect())
    }

    /// Canonical outputs (quantised vector, hashes, FLOPs) of `inputs`, in input order.
    pub fn infer(&self, inputs: &[&str], batch_size: usize) -> Result<Vec<Inference>> {
        let embeddings = self.embed(inputs, batch_size)?;
        Ok(inputs
            .iter()
            .zip(embeddings)
            .map(|(input, e)| {
                let quantized = quantize(&e.vector);
                let ih = input_hash(input);
                Inference {
                    model_id: self.spec.id,
                    output_hash: output_hash(self.spec.id, &ih, &quantized),
                    input_hash: ih,
                    quantized,
                    flops: forward_flops(&self.spec.config, self.spec.pooling, e.tokens),
                    tokens: e.tokens,
                    vector: e.vector,
                }
            })
            .collect())
    }
}

/// Splits inputs (sorted longest first) into forward passes of at most `batch_size` inputs that
/// spend at most as many tokens on padding as on input: every input is padded to the pass's longest,
/// so a few long inputs must not make a whole batch of short ones pay for their length.
fn batches<'a>(order: &'a [usize], ids: &[TokenIds], batch_size: usize, max_tokens: usize) -> Vec<&'a [usize]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let longest = ids[order[start]].len().max(1);
        let (mut end, mut real) = (start, 0usize);
        while end < order.len() && end - start < batch_size {
            let len = ids[order[end]].len();
            if end > start && ((end - start + 1) * longest > 2 * (real + len) || (end - start + 1) * longest > max_tokens) {
                break;
            }
            real += len;
            end += 1;
        }
        out.push(&order[start..end]);
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_respect_the_count_and_bound_the_padding() {
        let lens = [512usize, 300, 40, 30, 20, 10, 5, 2];
        let ids: Vec<TokenIds> = lens.iter().map(|&n| vec![0; n]).collect();
        let order: Vec<usize> = (0..ids.len()).collect();
        // 512+300+40 real tokens in 3*512 padded ones; a 30-token fourth would make padding exceed input.
        let got: Vec<Vec<usize>> = batches(&order, &ids, 4, usize::MAX).into_iter().map(<[usize]>::to_vec).collect();
        assert_eq!(got, vec![vec![0, 1, 2], vec![3, 4, 5, 6], vec![7]]);
        assert_eq!(batches(&order, &ids, 1, usize::MAX).len(), 8);
        // A token budget closes a pass early too: 2 x 512 and 3 x 300 padded tokens exceed 1,000.
        assert_eq!(batches(&order, &ids, 4, 1000).iter().map(|b| b.len()).collect::<Vec<_>>(), vec![1, 2, 4, 1]);
        let even: Vec<TokenIds> = vec![vec![0; 16]; 10];
        assert_eq!(batches(&(0..10).collect::<Vec<_>>(), &even, 4, usize::MAX).iter().map(|b| b.len()).collect::<Vec<_>>(), vec![4, 4, 2]);
    }
}

/// Sets libtorch's intra-op thread count for this process (0 leaves libtorch's default).
pub fn set_threads(threads: usize) {
    if threads > 0 {
        tch::set_num_threads(threads as i32);
    }
}

/// libtorch's intra-op thread count.
pub fn threads() -> usize {
    tch::get_num_threads().max(1) as usize
}
