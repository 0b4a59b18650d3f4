//! The inference addon (`native/svc-infer.*.node`): thin N-API bindings over svc-infer. Loaded only
//! for compute mode inference/auto and by svc-miner, because it links libtorch.


use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex, OnceLock};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use svc_infer::backend::{self, Backend};
use svc_infer::canonical::{self, OutputClaim};
use svc_infer::tier::{self, Accelerator};
use svc_infer::{approved_models, find_model, InferError, Model};

/// Errors reach JavaScript as `[CODE] message`; src/native/inference.ts turns them into classes.
fn js_error(e: InferError) -> Error {
    Error::new(Status::GenericFailure, format!("[{}] {e}", e.code()))
}

fn invalid(msg: impl Into<String>) -> Error {
    js_error(InferError::InvalidArgument(msg.into()))
}

#[napi(object)]
pub struct ModelFile {
    pub name: String,
    /// Lower-case hex SHA-256; null while the registry has no verified digest for the file.
    pub sha256: Option<String>,
    pub size: Option<i64>,
    pub url: String,
}

#[napi(object)]
pub struct ModelInfo {
    pub id: String,
    #[napi(ts_type = "'text-embedding' | 'text-classification'")]
    pub task: String,
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    pub dims: u32,
    pub max_seq_len: u32,
    #[napi(ts_type = "'mean' | 'cls-pooler'")]
    pub pooling: String,
    pub parameters: i64,
    pub size_mb: u32,
    pub min_memory_mb: u32,
    #[napi(ts_type = "'Hot' | 'Warm' | 'Cold'")]
    pub tier: String,
    pub hub_repo: String,
    pub hub_revision: String,
    pub files: Vec<ModelFile>,
}

/// The approved models and everything the registry pins about them.
#[napi]
pub fn list_models() -> Vec<ModelInfo> {
    approved_models()
        .iter()
        .map(|m| ModelInfo {
            id: m.id.to_owned(),
            task: m.task.as_str().to_owned(),
            layers: m.config.layers as u32,
            hidden: m.config.hidden as u32,
            heads: m.config.heads as u32,
            dims: m.dims as u32,
            max_seq_len: m.max_seq_len as u32,
            pooling: m.pooling.as_str().to_owned(),
            parameters: m.config.parameter_count(m.pooling == svc_infer::Pooling::ClsPooler) as i64,
            size_mb: m.size_mb,
            min_memory_mb: m.min_memory_mb,
            tier: m.tier.as_str().to_owned(),
            hub_repo: m.hub_repo.to_owned(),
            hub_revision: m.hub_revision.to_owned(),
            files: [&m.weights, &m.tokenizer]
                .into_iter()
                .map(|f| ModelFile {
                    name: f.name.to_owned(),
                    sha256: f.sha256.clone(),
                    size: f.size.map(|s| s as i64),
                    url: m.file_url(f),
                })
                .collect(),
        })
        .collect()
}

#[napi(object)]
pub struct HardwareInfo {
    /// The backend that `backend` resolved to: cpu, cuda or metal.
    #[napi(ts_type = "'cpu' | 'cuda' | 'metal'")]
    pub backend: String,
    /// none, discrete (own memory) or unified (shares system memory).
    #[napi(ts_type = "'none' | 'discrete' | 'unified'")]
    pub accelerator: String,
    pub gpu_name: Option<String>,
    pub gpu_memory_mb: Option<i64>,
    pub system_memory_mb: i64,
    #[napi(ts_type = "'Hot' | 'Warm' | 'Cold'")]
    pub tier: String,
    /// Ids of the models this tier may load.
    pub loadable_models: Vec<String>,
}

/// Resolves a backend on this machine and classifies it into a GPU tier.
#[napi]
pub fn detect_hardware(backend: String, max_memory_mb: Option<u32>) -> Result<HardwareInfo> {
    let requested: Backend = backend.parse().map_err(js_error)?;
    let resolved = backend::resolve(requested).map_err(js_error)?;
    let accelerator = backend::accelerator(resolved);
    let system = tier::system_memory_mb();
    let tier = tier::classify(&accelerator, system, max_memory_mb.unwrap_or(0) as u64);
    let (kind, name, memory) = match &accelerator {
        Accelerator::None => ("none", None, None),
        Accelerator::Discrete { name, memory_mb } => ("discrete", Some(name.clone()), Some(*memory_mb as i64)),
        Accelerator::Unified { name } => ("unified", Some(name.clone()), Some(system as i64)),
    };
    Ok(HardwareInfo {
        backend: resolved.as_str().to_owned(),
        accelerator: kind.to_owned(),
        gpu_name: name,
        gpu_memory_mb: memory,
        system_memory_mb: system as i64,
        tier: tier.as_str().to_owned(),
        loadable_models: approved_models().iter().filter(|m| tier.may_load(m)).map(|m| m.id.to_owned()).collect(),
    })
}

/// A model loaded on a device; runs are serialised (libtorch parallelises inside each run).
#[napi]
pub struct InferenceModel {
    model: Arc<Mutex<Model>>,
    id: String,
    backend: String,
    dims: u32,
}

#[napi(object)]
pub struct InferenceOutput {
    pub model_id: String,
    pub dims: u32,
    /// The L2-normalised fp32 vector.
    pub vector: Float32Array,
    /// The canonical int8 vector, `round(127 * x)`.
    pub quantized: Int8Array,
    pub input_hash: Buffer,
    pub output_hash: Buffer,
    pub tokens: u32,
    pub flops: i64,
}

pub struct LoadTask {
    id: String,
    model_dir: PathBuf,
    backend: String,
}

impl Task for LoadTask {
    type Output = Model;
    type JsValue = InferenceModel;

    fn compute(&mut self) -> Result<Model> {
        let spec = find_model(&self.id).map_err(js_error)?;
        let backend: Backend = self.backend.parse().map_err(js_error)?;
        let dir = self.model_dir.clone();
        // Loading runs libtorch's parallel operations too: on the inference thread, like every pass.
        on_inference_thread(move || Model::load(&spec, &dir, backend).map_err(js_error))
    }

    fn resolve(&mut self, _env: Env, model: Model) -> Result<InferenceModel> {
        Ok(InferenceModel {
            id: model.spec().id.to_owned(),
            backend: model.backend().as_str().to_owned(),
            dims: model.spec().dims as u32,
            model: Arc::new(Mutex::new(model)),
        })
    }
}

/// Loads an approved model from `<modelDir>/<id>/` (files verified against the registry's pins).
#[napi(ts_return_type = "Promise<InferenceModel>")]
pub fn load_model(id: String, model_dir: String, backend: String) -> AsyncTask<LoadTask> {
    AsyncTask::new(LoadTask { id, model_dir: PathBuf::from(model_dir), backend })
}

pub struct LoadPinnedTask {
    load: LoadTask,
    weights_sha256: String,
    tokenizer_sha256: String,
}

impl Task for LoadPinnedTask {
    type Output = Model;
    type JsValue = InferenceModel;

    fn compute(&mut self) -> Result<Model> {
        let spec = find_model(&self.load.id).map_err(js_error)?;
        let dir = svc_infer::files::model_path(&self.load.model_dir, &spec);
        let size = |name: &str| std::fs::metadata(dir.join(name)).map(|m| m.len()).unwrap_or(0);
        let pinned = spec.with_files(
            spec.weights.with_sha256(self.weights_sha256.clone(), size(spec.weights.name)),
            spec.tokenizer.with_sha256(self.tokenizer_sha256.clone(), size(spec.tokenizer.name)),
        );
        let backend: Backend = self.load.backend.parse().map_err(js_error)?;
        let dir = self.load.model_dir.clone();
        on_inference_thread(move || Model::load(&pinned, &dir, backend).map_err(js_error))
    }

    fn resolve(&mut self, env: Env, model: Model) -> Result<InferenceModel> {
        self.load.resolve(env, model)
    }
}

/// Loads a model of an approved shape from files pinned by the caller instead of the registry:
/// for checkpoints that are not (yet) the registry's, such as random weights in benchmarks.
#[napi(ts_return_type = "Promise<InferenceModel>")]
pub fn load_model_with_pins(
    id: String,
    model_dir: String,
    backend: String,
    weights_sha256: String,
    tokenizer_sha256: String,
) -> AsyncTask<LoadPinnedTask> {
    AsyncTask::new(LoadPinnedTask {
        load: LoadTask { id, model_dir: PathBuf::from(model_dir), backend },
        weights_sha256,
        tokenizer_sha256,
    })
}

/// Writes `<modelDir>/<id>/model.safetensors` with random weights of the model's real shape and
/// returns its SHA-256 (for `loadModelWithPins`).
#[napi]
pub fn write_random_checkpoint(id: String, model_dir: String, seed: i64) -> Result<String> {
    let spec = find_model(&id).map_err(js_error)?;
    let dir = svc_infer::files::model_path(std::path::Path::new(&model_dir), &spec);
    std::fs::create_dir_all(&dir).map_err(|e| js_error(InferError::Io(dir.clone(), e)))?;
    let path = dir.join(spec.weights.name);
    let with_pooler = spec.pooling == svc_infer::Pooling::ClsPooler;
    let file = path.clone();
    on_inference_thread(move || svc_infer::random_weights::write_random_checkpoint(&spec.config, with_pooler, &file, seed))
        .map_err(js_error)?;
    svc_infer::files::sha256_file(&path).map_err(js_error)
}

pub struct InferTask {
    model: Arc<Mutex<Model>>,
    inputs: Vec<String>,
    batch_size: usize,
}

impl Task for InferTask {
    type Output = Vec<svc_infer::Inference>;
    type JsValue = Vec<InferenceOutput>;

    fn compute(&mut self) -> Result<Self::Output> {
        let (model, inputs, batch_size) = (self.model.clone(), std::mem::take(&mut self.inputs), self.batch_size);
        on_inference_thread(move || {
            let model = model.lock().map_err(|_| invalid("model poisoned by an earlier panic"))?;
            let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
            model.infer(&inputs, batch_size).map_err(js_error)
        })
    }

    fn resolve(&mut self, _env: Env, out: Self::Output) -> Result<Self::JsValue> {
        Ok(out
            .into_iter()
            .map(|i| InferenceOutput {
                model_id: i.model_id.to_owned(),
                dims: i.quantized.len() as u32,
                vector: Float32Array::new(i.vector),
                quantized: Int8Array::new(i.quantized),
                input_hash: i.input_hash.to_vec().into(),
                output_hash: i.output_hash.to_vec().into(),
                tokens: i.tokens as u32,
                flops: i.flops as i64,
            })
            .collect())
    }
}

#[napi]
impl InferenceModel {
    #[napi(getter)]
    pub fn id(&self) -> String {
        self.id.clone()
    }

    /// cpu, cuda or metal.
    #[napi(getter, ts_return_type = "'cpu' | 'cuda' | 'metal'")]
    pub fn backend(&self) -> String {
        self.backend.clone()
    }

    #[napi(getter)]
    pub fn dims(&self) -> u32 {
        self.dims
    }

    /// Canonical outputs of `inputs` in input order, `batchSize` inputs per forward pass (default 32).
    #[napi(ts_return_type = "Promise<InferenceOutput[]>")]
    pub fn infer(&self, inputs: Vec<String>, batch_size: Option<u32>) -> Result<AsyncTask<InferTask>> {
        let batch_size = batch_size.unwrap_or(svc_infer::DEFAULT_BATCH_SIZE as u32) as usize;
        if batch_size == 0 {
            return Err(invalid("batch size must be at least 1"));
        }
        Ok(AsyncTask::new(InferTask { model: self.model.clone(), inputs, batch_size }))
    }

    /// Token counts of `inputs` as this model reads them (truncation, [CLS] and [SEP] included).
    #[napi]
    pub fn token_counts(&self, inputs: Vec<String>) -> Result<Vec<u32>> {
        let model = self.model.lock().map_err(|_| invalid("model poisoned by an earlier panic"))?;
        let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        Ok(model.tokenize(&inputs).map_err(js_error)?.iter().map(|t| t.len() as u32).collect())
    }
}

fn hash32(b: &[u8], what: &str) -> Result<[u8; 32]> {
    b.try_into().map_err(|_| invalid(format!("{what} must be 32 bytes, got {}", b.len())))
}

/// BLAKE3 of the input's UTF-8 bytes.
#[napi]
pub fn input_hash(input: String) -> Buffer {
    canonical::input_hash(&input).to_vec().into()
}

/// The commitment to a quantised output (encoding in docs/inference.md).
#[napi]
pub fn output_hash(model_id: String, input_hash: Buffer, quantized: Int8Array) -> Result<Buffer> {
    find_model(&model_id).map_err(js_error)?;
    let ih = hash32(&input_hash, "inputHash")?;
    Ok(canonical::output_hash(&model_id, &ih, &quantized).to_vec().into())
}

#[napi(object)]
pub struct OutputClaimInput {
    pub model_id: String,
    pub input_hash: Buffer,
    pub quantized: Int8Array,
    pub output_hash: Buffer,
}

#[napi(object)]
pub struct Verdict {
    pub hash_matches: bool,
    pub same_task: bool,
    pub cosine: f64,
    pub max_abs_diff: u32,
    pub accepted: bool,
}

fn claim(c: &OutputClaimInput) -> Result<OutputClaim> {
    Ok(OutputClaim {
        model_id: c.model_id.clone(),
        input_hash: hash32(&c.input_hash, "inputHash")?,
        quantized: c.quantized.to_vec(),
        output_hash: hash32(&c.output_hash, "outputHash")?,
    })
}

/// Checks a carried output against a recomputation of the same task, under the default tolerance.
#[napi]
pub fn verify_output(claimed: OutputClaimInput, recomputed: OutputClaimInput) -> Result<Verdict> {
    let v = canonical::verify(&claim(&claimed)?, &claim(&recomputed)?, canonical::Tolerance::default());
    Ok(Verdict {
        hash_matches: v.hash_matches,
        same_task: v.same_task,
        cosine: v.cosine,
        max_abs_diff: v.max_abs_diff,
        accepted: v.accepted,
    })
}

#[napi(object)]
pub struct Tolerance {
    pub min_cosine: f64,
    pub max_abs_diff: u32,
}

/// The spot-check tolerance that `verifyOutput` applies.
#[napi]
pub fn tolerance() -> Tolerance {
    let t = canonical::Tolerance::default();
    Tolerance { min_cosine: t.min_cosine, max_abs_diff: t.max_abs_diff }
}

/// FLOPs of one forward pass of `modelId` over `tokens` tokens.
#[napi]
pub fn model_flops(model_id: String, tokens: u32) -> Result<i64> {
    let m = find_model(&model_id).map_err(js_error)?;
    Ok(svc_infer::flops::forward_flops(&m.config, m.pooling, tokens as usize) as i64)
}

/// The vector kernel of the CPU path's packed products and attention on this machine: `avx512f`,
/// `avx2+fma`, or `scalar` (then every product stays on libtorch). All give the same bits.
#[napi]
pub fn cpu_kernel() -> String {
    svc_infer::gemm::Kernel::detect().as_str().to_owned()
}

/// Sets libtorch's intra-op thread count for this process (0 keeps the current one).
#[napi]
pub fn set_threads(threads: u32) {
    svc_infer::model::set_threads(threads as usize);
    // OpenMP keeps the count per thread: the inference thread must hear it too.
    on_inference_thread(move || svc_infer::model::set_threads(threads as usize));
}

/// libtorch's intra-op thread count (as the inference thread runs with it).
#[napi]
pub fn threads() -> u32 {
    on_inference_thread(|| svc_infer::model::threads() as u32)
}

type Job = Box<dyn FnOnce() + Send>;

/// Runs `f` on the addon's one inference thread and returns its result.
///
/// Why one thread: libgomp (libtorch's OpenMP runtime) keeps a team of worker threads per calling
/// thread, and after a parallel region those workers spin for a while before they sleep. Forward
/// passes issued from whichever libuv worker is free leave up to four teams spinning on the cores
/// the next pass needs: on the 2-core development machine batch-1 latency through the addon was
/// 7.4–7.7 ms that way and 3.6–4.4 ms with every pass on one thread (same model, same load).
/// Model loads run here too: a second team (made by the load's parallel copies on a libuv worker)
/// makes libgomp count more threads than cores, and it then lets idle workers sleep at once instead
/// of spinning, so every parallel region of a pass paid a futex wake (batch 1 at 16 tokens on two
/// threads: 4.95 ms through the addon with the load on a libuv worker, 2.5–2.9 ms with it here).
fn on_inference_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    static QUEUE: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("svc-infer".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            })
            .expect("spawn the inference thread");
        Mutex::new(tx)
    });
    let (done_tx, done_rx) = mpsc::sync_channel(1);
    // A panic in `f` is carried back to the caller, so the thread survives it.
    let job: Job = Box::new(move || {
        let _ = done_tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    });
    queue.lock().unwrap_or_else(|e| e.into_inner()).send(job).expect("the inference thread runs for the life of the process");
    match done_rx.recv().expect("the inference thread answers every job") {
        Ok(out) => out,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
