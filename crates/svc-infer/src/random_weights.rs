//! Checkpoints of random weights in a model's real shape and naming: they exercise the same loader
//! and encoder as real weights, and cost the same FLOPs, where the real files are not at hand.

use std::path::Path;

use tch::{Device, Kind, Tensor};

use crate::bert::BertConfig;
use crate::error::{InferError, Result};

/// Writes a safetensors checkpoint of `config`'s shape with weights drawn like BERT's initialiser
/// (normal, std 0.02; layer norms at weight 1, bias 0), deterministic in `seed`.
pub fn write_random_checkpoint(config: &BertConfig, with_pooler: bool, path: &Path, seed: i64) -> Result<()> {
    tch::manual_seed(seed);
    let tensors: Vec<(String, Tensor)> = config
        .tensor_shapes(with_pooler)
        .into_iter()
        .map(|(name, shape)| {
            let t = if name.ends_with("LayerNorm.weight") {
                Tensor::ones(shape.as_slice(), (Kind::Float, Device::Cpu))
            } else if name.ends_with("LayerNorm.bias") {
                Tensor::zeros(shape.as_slice(), (Kind::Float, Device::Cpu))
            } else {
                Tensor::randn(shape.as_slice(), (Kind::Float, Device::Cpu)) * 0.02
            };
            (name, t)
        })
        .collect();
    Tensor::write_safetensors(&tensors, path).map_err(|e| InferError::Weights {
        model: "random".into(),
        path: path.to_owned(),
        reason: e.to_string(),
    })
}
