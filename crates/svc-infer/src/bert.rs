//! One BERT encoder (embeddings, post-norm transformer layers, optional pooler) for every approved
//! model; the shape comes from `BertConfig`, the weights from a safetensors file in the hub's naming.

use std::collections::HashMap;

use tch::{Device, Kind, Tensor};

use crate::error::{InferError, Result};
use crate::gemm::{self, PackedLinear};

/// Products of at most this many rows (tokens in a forward pass) use the packed kernel of
/// `gemm.rs`; longer ones use libtorch's `addmm`, which blocks large products for the caches.
/// Measured crossover on the development CPU (AMD EPYC, AVX2): see docs/inference.md.
pub const PACKED_MAX_ROWS: i64 = 128;

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

    /// `x · Wᵀ + b (+ residual)` for `x` `[rows, k]`; the result is `[rows, n]`, contiguous.
    fn forward(&self, x: &Tensor, residual: Option<&Tensor>) -> Tensor {
        let (rows, _) = x.size2().expect("linear input is [rows, features]");
        match &self.packed {
            Some(packed) if rows <= PACKED_MAX_ROWS => {
                let x = x.contiguous();
                let residual = residual.map(Tensor::contiguous);
                let y = Tensor::empty([rows, packed.out_features() as i64], (Kind::Float, Device::Cpu));
                let (m, n, k) = (rows as usize, packed.out_features(), packed.in_features());
                // SAFETY: x, residual and y are contiguous fp32 CPU tensors of m*k, m*n and m*n elements
                // that stay alive (and are not otherwise accessed) for the duration of the call.
                unsafe {
                    let xs = std::slice::from_raw_parts(x.data_ptr() as *const f32, m * k);
                    let rs = residual.as_ref().map(|r| std::slice::from_raw_parts(r.data_ptr() as *const f32, m * n));
                    let ys = std::slice::from_raw_parts_mut(y.data_ptr() as *mut f32, m * n);
                    packed.forward(xs, rs, ys, m);
                }
                y
            }
            _ => {
                let y = x.linear(&self.weight, Some(&self.bias));
                match residual {
                    Some(r) => y + r,
                    None => y,
                }
            }
        }
    }
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
    /// (1 = token). `None` means no padding: every key is attended to, and SDPA needs no mask.
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
        for layer in &self.layers {
            let qkv = layer.qkv.forward(&x, None).view([batch, seq, 3, heads, head_dim]).permute([2, 0, 3, 1, 4]);
            let (q, k, v) = (qkv.get(0), qkv.get(1), qkv.get(2));
            let context = Tensor::scaled_dot_product_attention(&q, &k, &v, keys.as_ref(), 0.0, false, None, false)
                .transpose(1, 2)
                .reshape([rows, hidden]);
            // The residual is added inside the product (packed kernel) or right after it (libtorch).
            x = layer.attention_norm.forward(&layer.attention_out.forward(&context, Some(&x)));
            let mut inner = layer.intermediate.forward(&x, None);
            let _ = inner.gelu_("none");
            x = layer.output_norm.forward(&layer.output.forward(&inner, Some(&x)));
        }
        x.view([batch, seq, hidden])
    }

    /// BERT's pooler over the [CLS] state; `None` when the model was loaded without one.
    pub fn pool_cls(&self, states: &Tensor) -> Option<Tensor> {
        self.pooler.as_ref().map(|p| p.forward(&states.select(1, 0), None).tanh())
    }
}
