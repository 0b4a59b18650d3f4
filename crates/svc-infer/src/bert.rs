//! One BERT encoder (embeddings, post-norm transformer layers, optional pooler) for every approved
//! model; the shape comes from `BertConfig`, the weights from a safetensors file in the hub's naming.

use std::collections::HashMap;

use tch::{Device, Kind, Tensor};

use crate::error::{InferError, Result};
use crate::attention;
use crate::gemm::{self, PackedLinear};

/// The shape of a BERT encoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BertConfig {
    pub layers: usize,
    pub hidden: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub vocab: usize,
    pub max_positions: usize,
    pub type_vocab: usize,
    pub layer_norm_eps: f64,
}

impl BertConfig {
    /// Every tensor the encoder reads, with its shape, in the hub's (BertModel) naming.
    pub fn tensor_shapes(&self, with_pooler: bool) -> Vec<(String, Vec<i64>)> {
        let (h, f) = (self.hidden as i64, self.intermediate as i64);
        let mut out = vec![
            ("embeddings.word_embeddings.weight".to_owned(), vec![self.vocab as i64, h]),
            ("embeddings.position_embeddings.weight".to_owned(), vec![self.max_positions as i64, h]),
            ("embeddings.token_type_embeddings.weight".to_owned(), vec![self.type_vocab as i64, h]),
            ("embeddings.LayerNorm.weight".to_owned(), vec![h]),
            ("embeddings.LayerNorm.bias".to_owned(), vec![h]),
        ];
        for i in 0..self.layers {
            let p = format!("encoder.layer.{i}");
            for (name, shape) in [
                ("attention.self.query.weight", vec![h, h]),
                ("attention.self.query.bias", vec![h]),
                ("attention.self.key.weight", vec![h, h]),
                ("attention.self.key.bias", vec![h]),
                ("attention.self.value.weight", vec![h, h]),
                ("attention.self.value.bias", vec![h]),
                ("attention.output.dense.weight", vec![h, h]),
                ("attention.output.dense.bias", vec![h]),
                ("attention.output.LayerNorm.weight", vec![h]),
                ("attention.output.LayerNorm.bias", vec![h]),
                ("intermediate.dense.weight", vec![f, h]),
                ("intermediate.dense.bias", vec![f]),
                ("output.dense.weight", vec![h, f]),
                ("output.dense.bias", vec![h]),
                ("output.LayerNorm.weight", vec![h]),
                ("output.LayerNorm.bias", vec![h]),
            ] {
                out.push((format!("{p}.{name}"), shape));
            }
        }
        if with_pooler {
            out.push(("pooler.dense.weight".to_owned(), vec![h, h]));
            out.push(("pooler.dense.bias".to_owned(), vec![h]));
        }
        out
    }

    /// Parameters of the encoder (and pooler), for sizes and memory estimates.
    pub fn parameter_count(&self, with_pooler: bool) -> u64 {
        self.tensor_shapes(with_pooler).iter().map(|(_, s)| s.iter().product::<i64>() as u64).sum()
    }
}

struct Linear {
    weight: Tensor,
    bias: Tensor,
    /// The same weight packed for few-row products, on CPUs with AVX2 + FMA (else None).
    packed: Option<PackedLinear>,
}

impl Linear {
    fn new(weight: Tensor, bias: Tensor) -> Result<Self> {
        let packed = if weight.device() == Device::Cpu && gemm::fast_kernel() {
            let (n, k) = weight.size2()?;
            let w = Vec::<f32>::try_from(weight.contiguous().view([-1]))?;
            let b = Vec::<f32>::try_from(&bias)?;
            Some(PackedLinear::new(&w, &b, n as usize, k as usize))
        } else {
            None
        };
        Ok(Self { weight, bias, packed })
    }

    /// `GELU(x · Wᵀ + b)` (the exact, erf form) for `x` `[rows, k]`: in the packed kernel's store, or
    /// libtorch's product then its GELU.
    fn forward_gelu(&self, x: &Tensor) -> Tensor {
        match &self.packed {
            Some(packed) => packed_product(packed, x, None, true),
            None => {
                let mut y = x.linear(&self.weight, Some(&self.bias));
                let _ = y.gelu_("none");
                y
            }
        }
    }

    /// `x · Wᵀ + b (+ residual)` for `x` `[rows, k]`; the result is `[rows, n]`, contiguous.
    fn forward(&self, x: &Tensor, residual: Option<&Tensor>) -> Tensor {
        match &self.packed {
            Some(packed) => packed_product(packed, x, residual, false),
            None => {
                let y = x.linear(&self.weight, Some(&self.bias));
                match residual {
                    Some(r) => y + r,
                    None => y,
                }
            }
        }
    }
}

/// `x · Wᵀ + b`, then GELU or plus `residual`, on the packed kernel: a new contiguous `[rows, n]`.
fn packed_product(packed: &PackedLinear, x: &Tensor, residual: Option<&Tensor>, gelu: bool) -> Tensor {
    let (rows, _) = x.size2().expect("linear input is [rows, features]");
    let x = x.contiguous();
    let residual = residual.map(Tensor::contiguous);
    let y = Tensor::empty([rows, packed.out_features() as i64], (Kind::Float, Device::Cpu));
    let (m, n, k) = (rows as usize, packed.out_features(), packed.in_features());
    // SAFETY: x, residual and y are contiguous fp32 CPU tensors of m*k, m*n and m*n elements that
    // stay alive (and are not otherwise accessed) for the duration of the call.
    unsafe {
        let xs = std::slice::from_raw_parts(x.data_ptr() as *const f32, m * k);
        let rs = residual.as_ref().map(|r| std::slice::from_raw_parts(r.data_ptr() as *const f32, m * n));
        let ys = std::slice::from_raw_parts_mut(y.data_ptr() as *mut f32, m * n);
        if gelu {
            packed.forward_gelu(xs, ys, m);
        } else {
            packed.forward(xs, rs, ys, m);
        }
    }
    y
}

struct LayerNorm {
    weight: Tensor,
    bias: Tensor,
    eps: f64,
}

impl LayerNorm {
    fn forward(&self, x: &Tensor) -> Tensor {
        let n = *self.weight.size().last().expect("1-d layer norm weight");
        x.layer_norm([n], Some(&self.weight), Some(&self.bias), self.eps, true)
    }
}

struct Layer {
    /// Query, key and value projections stacked into one matmul.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// A BERT encoder whose tensors live on one device.
pub struct BertEncoder {
    config: BertConfig,
    word: Tensor,
    position: Tensor,
    token_type_row: Tensor,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    pooler: Option<Linear>,
    device: Device,
}

/// Named tensors of a checkpoint, looked up under the hub's naming variants.
struct Checkpoint<'a> {
    model: &'a str,
    tensors: HashMap<String, Tensor>,
}

impl Checkpoint<'_> {
    /// A checkpoint of another shape (say, more layers) must not load by silently dropping tensors.
    fn refuse_leftovers(&self, with_pooler: bool) -> Result<()> {
        let ignorable = |name: &str| {
            let name = name.strip_prefix("bert.").unwrap_or(name);
            // Position ids are a buffer, `cls.` is the pre-training head; the pooler is unused by mean pooling.
            name == "embeddings.position_ids" || name.starts_with("cls.") || (!with_pooler && name.starts_with("pooler."))
        };
        let mut extra: Vec<&String> = self.tensors.keys().filter(|k| !ignorable(k)).collect();
        extra.sort();
        match extra.first() {
            None => Ok(()),
            Some(name) => Err(InferError::UnexpectedTensor { model: self.model.to_owned(), name: (*name).clone() }),
        }
    }

    fn take(&mut self, name: &str, shape: &[i64]) -> Result<Tensor> {
        // BertForPreTraining checkpoints prefix `bert.`; TF-era ones name LayerNorm gamma/beta.
        let legacy = name.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta");
        let candidates = [name.to_owned(), format!("bert.{name}"), legacy.clone(), format!("bert.{legacy}")];
        let key = candidates.iter().find(|c| self.tensors.contains_key(*c)).cloned().ok_or_else(|| {
            InferError::MissingTensor { model: self.model.to_owned(), name: name.to_owned() }
        })?;
        let t = self.tensors.remove(&key).expect("key found above");
        if t.size() != shape {
            return Err(InferError::TensorShape {
                model: self.model.to_owned(),
                name: name.to_owned(),
                expected: shape.to_vec(),
                found: t.size(),
            });
        }
        Ok(t)
    }
}

impl BertEncoder {
    /// Builds the encoder from named tensors (as read from safetensors), checking every name and shape.
    pub fn from_tensors(
        model: &str,
        config: BertConfig,
        tensors: Vec<(String, Tensor)>,
        with_pooler: bool,
        device: Device,
    ) -> Result<Self> {
        let mut ck = Checkpoint { model, tensors: tensors.into_iter().collect() };
        let shapes: HashMap<String, Vec<i64>> = config.tensor_shapes(with_pooler).into_iter().collect();
        // fp32 is the canonical precision whatever the checkpoint stores.
        let mut get = |name: &str| -> Result<Tensor> {
            let t = ck.take(name, &shapes[name])?;
            Ok(t.to_kind(Kind::Float).to_device(device))
        };
        let h = config.hidden as i64;
        let eps = config.layer_norm_eps;
        let word = get("embeddings.word_embeddings.weight")?;
        let position = get("embeddings.position_embeddings.weight")?;
        // Inputs are single segments, so every token adds row 0 of the token-type table.
        let token_type_row = get("embeddings.token_type_embeddings.weight")?.get(0);
        let embedding_norm = LayerNorm {
            weight: get("embeddings.LayerNorm.weight")?,
            bias: get("embeddings.LayerNorm.bias")?,
            eps,
        };
        let mut layers = Vec::with_capacity(config.layers);
        for i in 0..config.layers {
            let p = format!("encoder.layer.{i}");
            let mut wb = |name: &str| -> Result<(Tensor, Tensor)> {
                Ok((get(&format!("{p}.{name}.weight"))?, get(&format!("{p}.{name}.bias"))?))
            };
            let (q, k, v) = (wb("attention.self.query")?, wb("attention.self.key")?, wb("attention.self.value")?);
            let qkv = Linear::new(Tensor::cat(&[&q.0, &k.0, &v.0], 0), Tensor::cat(&[&q.1, &k.1, &v.1], 0))?;
            let mut lin = |name: &str| -> Result<Linear> {
                let (w, b) = wb(name)?;
                Linear::new(w, b)
            };
            let attention_out = lin("attention.output.dense")?;
            let intermediate = lin("intermediate.dense")?;
            let output = lin("output.dense")?;
            let attention_norm = LayerNorm {
                weight: get(&format!("{p}.attention.output.LayerNorm.weight"))?,
                bias: get(&format!("{p}.attention.output.LayerNorm.bias"))?,
                eps,
            };
            let output_norm = LayerNorm {
                weight: get(&format!("{p}.output.LayerNorm.weight"))?,
                bias: get(&format!("{p}.output.LayerNorm.bias"))?,
                eps,
            };
            layers.push(Layer { qkv, attention_out, attention_norm, intermediate, output, output_norm });
        }
        let pooler = if with_pooler {
            Some(Linear::new(get("pooler.dense.weight")?, get("pooler.dense.bias")?)?)
        } else {
            None
        };
        debug_assert_eq!(word.size()[1], h);
        ck.refuse_leftovers(with_pooler)?;
        Ok(Self { config, word, position, token_type_row, embedding_norm, layers, pooler, device })
    }

    pub fn config(&self) -> &BertConfig {
        &self.config
    }

    pub fn device(&self) -> Device {
        self.device
    }

    /// Token states `[batch, seq, hidden]` for `input_ids` `[batch, seq]` (int64) under `mask`
    /// (1 = token). `None` means no padding: every key is attended to.
    pub fn forward(&self, input_ids: &Tensor, mask: Option<&Tensor>) -> Tensor {
        let (batch, seq) = input_ids.size2().expect("input ids are [batch, seq]");
        let heads = self.config.heads as i64;
        let hidden = self.config.hidden as i64;
        let head_dim = hidden / heads;
        let rows = batch * seq;
        let positions = self.position.narrow(0, 0, seq);
        let x = Tensor::embedding(&self.word, input_ids, -1, false, false) + positions.unsqueeze(0) + &self.token_type_row;
        // Token states stay [batch * seq, hidden] between layers: every projection is one 2-d product.
        let mut x = self.embedding_norm.forward(&x).view([rows, hidden]);
        // [batch, 1, 1, seq] boolean: which keys each query may attend to.
        let keys = mask.map(|m| m.to_kind(Kind::Bool).view([batch, 1, 1, seq]));
        // Tokens per sequence, for the packed attention (CPU with a vector kernel): padding must be
        // at the end of each sequence, as `Model` builds its batches; any other mask keeps SDPA.
        let lengths = match (self.layers.first().and_then(|l| l.qkv.packed.as_ref()), mask) {
            (None, _) => None,
            (Some(_), None) => Some(vec![seq as usize; batch as usize]),
            (Some(_), Some(mask)) => Vec::<i64>::try_from(mask.to_kind(Kind::Int64).contiguous().view([-1]))
                .ok()
                .and_then(|flags| prefix_lengths(&flags, seq as usize)),
        };
        for layer in &self.layers {
            let qkv = layer.qkv.forward(&x, None);
            let context = match (&lengths, layer.qkv.packed.as_ref()) {
                // On the CPU: per-head packed products (attention.rs).
                (Some(lengths), Some(packed)) => {
                    attention::attention(&qkv, lengths, seq as usize, heads as usize, head_dim as usize, packed.kernel())
                }
                _ => {
                    let qkv = qkv.view([batch, seq, 3, heads, head_dim]).permute([2, 0, 3, 1, 4]);
                    let (q, k, v) = (qkv.get(0), qkv.get(1), qkv.get(2));
                    Tensor::scaled_dot_product_attention(&q, &k, &v, keys.as_ref(), 0.0, false, None, false)
                        .transpose(1, 2)
                        .reshape([rows, hidden])
                }
            };
            // The residual is added inside the product (packed kernel) or right after it (libtorch).
            x = layer.attention_norm.forward(&layer.attention_out.forward(&context, Some(&x)));
            let inner = layer.intermediate.forward_gelu(&x);
            x = layer.output_norm.forward(&layer.output.forward(&inner, Some(&x)));
        }
        x.view([batch, seq, hidden])
    }

    /// BERT's pooler over the [CLS] state; `None` when the model was loaded without one.
    pub fn pool_cls(&self, states: &Tensor) -> Option<Tensor> {
        self.pooler.as_ref().map(|p| p.forward(&states.select(1, 0), None).tanh())
    }
}

/// Each row's token count when every row of `flags` (`[batch, seq]`, 1 = token) is ones then zeros;
/// `None` for any other pattern.
fn prefix_lengths(flags: &[i64], seq: usize) -> Option<Vec<usize>> {
    if seq == 0 {
        return Some(vec![0; flags.len()]);
    }
    flags
        .chunks(seq)
        .map(|row| {
            let len = row.iter().take_while(|&&f| f != 0).count();
            row[len..].iter().all(|&f| f == 0).then_some(len)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::prefix_lengths;

    #[test]
    fn lengths_come_from_masks_padded_at_the_end_only() {
        assert_eq!(prefix_lengths(&[1, 1, 0, 1, 0, 0, 1, 1, 1], 3), Some(vec![2, 1, 3]));
        assert_eq!(prefix_lengths(&[0, 0, 0, 1, 1, 1], 3), Some(vec![0, 3]));
        assert_eq!(prefix_lengths(&[1, 0, 1], 3), None, "a gap is not end padding");
        assert_eq!(prefix_lengths(&[0, 1], 2), None, "nor is padding at the start");
    }
}
