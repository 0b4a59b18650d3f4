//! The spot-check tolerance: honest recomputations on other paths verify; another model, a
//! quantised model or a perturbed output does not. Each test prints what it measured.

mod common;

use common::{model_dir, pinned_to_files_in, real_tokenizer, reference, small};
use svc_infer::canonical::{cosine_i8, quantize, verify, OutputClaim, Tolerance, Verdict};
use svc_infer::model::{set_threads, threads};
use svc_infer::random_weights::write_random_checkpoint;
use svc_infer::{find_model, input_hash, output_hash, Backend, Inference, Model, ModelSpec};
use tch::{Kind, Tensor};

fn claim(i: &Inference) -> OutputClaim {
    OutputClaim {
        model_id: i.model_id.to_owned(),
        input_hash: i.input_hash,
        quantized: i.quantized.clone(),
        output_hash: i.output_hash,
    }
}

fn texts() -> Vec<String> {
    reference().into_iter().map(|r| r.text).collect()
}

/// Verdicts of `claimed` against `recomputed`, pairwise, with the worst cosine and step seen.
fn compare(label: &str, claimed: &[Inference], recomputed: &[Inference]) -> Vec<Verdict> {
    let verdicts: Vec<Verdict> =
        claimed.iter().zip(recomputed).map(|(c, r)| verify(&claim(c), &claim(r), Tolerance::default())).collect();
    let worst_cos = verdicts.iter().map(|v| v.cosine).fold(1.0, f64::min);
    let worst_step = verdicts.iter().map(|v| v.max_abs_diff).max().unwrap_or(0);
    let accepted = verdicts.iter().filter(|v| v.accepted).count();
    let best_cos = verdicts.iter().map(|v| v.cosine).fold(-1.0, f64::max);
    let best_step = verdicts.iter().map(|v| v.max_abs_diff).min().unwrap_or(0);
    let identical = claimed.iter().zip(recomputed).filter(|(c, r)| c.quantized == r.quantized).count();
    eprintln!(
        "{label}: {accepted}/{} accepted, {identical} bit-identical int8 vectors, cosine {worst_cos:.6}..{best_cos:.6}, max |dq| {best_step}..{worst_step}",
        verdicts.len()
    );
    verdicts
}

fn small_model() -> Model {
    Model::load(&small(), &model_dir(), Backend::Cpu).unwrap()
}

#[test]
fn batch_and_single_and_thread_counts_verify() {
    let model = small_model();
    let texts = texts();
    let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let before = threads();
    set_threads(1);
    let batched_1t = model.infer(&inputs, 32).unwrap();
    let single_1t = model.infer(&inputs, 1).unwrap();
    set_threads(2);
    let batched_2t = model.infer(&inputs, 32).unwrap();
    let batch_7_2t = model.infer(&inputs, 7).unwrap();
    set_threads(before);
    for (label, other) in [
        ("batch 32 vs batch 1 (1 thread)", &single_1t),
        ("1 thread vs 2 threads (batch 32)", &batched_2t),
        ("batch 32 1 thread vs batch 7 2 threads", &batch_7_2t),
    ] {
        assert!(compare(label, &batched_1t, other).iter().all(|v| v.accepted), "{label}");
    }
}

#[test]
fn sentence_transformers_outputs_verify_against_ours() {
    // A miner running the reference Python stack must pass a spot-check by this implementation.
    let model = small_model();
    let refs = reference();
    let inputs: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    let ours = model.infer(&inputs, 32).unwrap();
    let theirs: Vec<Inference> = refs
        .iter()
        .map(|r| {
            let q = quantize(&r.embedding);
            let ih = input_hash(&r.text);
            Inference {
                model_id: small().id,
                vector: r.embedding.clone(),
                output_hash: output_hash(small().id, &ih, &q),
                quantized: q,
                input_hash: ih,
                tokens: r.tokens,
                flops: 0,
            }
        })
        .collect();
    assert!(compare("sentence-transformers vs svc-infer", &theirs, &ours).iter().all(|v| v.accepted));
}

fn write_model(spec: &ModelSpec, dir: &std::path::Path, tensors: &[(String, Tensor)]) -> ModelSpec {
    let folder = dir.join(spec.id);
    std::fs::create_dir_all(&folder).unwrap();
    Tensor::write_safetensors(tensors, folder.join("model.safetensors")).unwrap();
    std::fs::copy(real_tokenizer(), folder.join("tokenizer.json")).unwrap();
    pinned_to_files_in(spec, dir)
}

/// The real weights with every matrix quantised to int8 (per tensor, symmetric, as PyTorch's
/// dynamic quantisation stores them) and dequantised back.
fn int8_weights() -> Vec<(String, Tensor)> {
    let path = model_dir().join(small().id).join("model.safetensors");
    Tensor::read_safetensors(path)
        .unwrap()
        .into_iter()
        .map(|(name, t)| {
            if t.dim() == 2 && t.kind() == Kind::Float {
                let scale = t.abs().max().double_value(&[]) / 127.0;
                let q = (&t / scale).round().clamp(-127.0, 127.0) * scale;
                (name, q)
            } else {
                (name, t)
            }
        })
        .collect()
}

#[test]
fn a_quantised_model_does_not_verify() {
    let honest = small_model();
    let dir = tempfile::tempdir().unwrap();
    let spec = write_model(&small(), dir.path(), &int8_weights());
    let cheap = Model::load(&spec, dir.path(), Backend::Cpu).unwrap();
    let texts = texts();
    let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let verdicts = compare("int8-quantised weights vs fp32", &cheap.infer(&inputs, 32).unwrap(), &honest.infer(&inputs, 32).unwrap());
    let rejected = verdicts.iter().filter(|v| !v.accepted).count();
    assert_eq!(rejected, verdicts.len(), "every output of the quantised model is rejected");
}

#[test]
fn another_model_does_not_verify() {
    let honest = small_model();
    let dir = tempfile::tempdir().unwrap();
    let medium = find_model("svc-embed-medium@v1.0").unwrap();
    let folder = dir.path().join(medium.id);
    std::fs::create_dir_all(&folder).unwrap();
    write_random_checkpoint(&medium.config, false, &folder.join("model.safetensors"), 11).unwrap();
    std::fs::copy(real_tokenizer(), folder.join("tokenizer.json")).unwrap();
    let other = Model::load(&pinned_to_files_in(&medium, dir.path()), dir.path(), Backend::Cpu).unwrap();
    let texts = texts();
    let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let theirs = other.infer(&inputs, 32).unwrap();
    let ours = honest.infer(&inputs, 32).unwrap();
    // Claimed under its own id: the task is not the same.
    assert!(compare("svc-embed-medium claim vs svc-embed-small", &theirs, &ours).iter().all(|v| !v.accepted && !v.same_task));
    // Claimed under small's id (the hash recomputed to match): the vectors give it away.
    let relabelled: Vec<Inference> = theirs
        .into_iter()
        .map(|mut i| {
            i.model_id = small().id;
            i.output_hash = output_hash(small().id, &i.input_hash, &i.quantized);
            i
        })
        .collect();
    assert!(compare("other weights under small's id", &relabelled, &ours).iter().all(|v| !v.accepted && v.hash_matches));
}

#[test]
fn perturbed_outputs_do_not_verify() {
    let model = small_model();
    let texts = texts();
    let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let honest = model.infer(&inputs, 32).unwrap();
    tch::manual_seed(5);
    let mut noisy = Vec::new();
    for i in &honest {
        // Noise of std 0.01 per component (about 1.3 int8 steps), renormalised to a unit vector.
        let v = Tensor::from_slice(&i.vector) + Tensor::randn([i.vector.len() as i64], (Kind::Float, tch::Device::Cpu)) * 0.01;
        let v = &v / v.norm();
        let vector = Vec::<f32>::try_from(v).unwrap();
        let q = quantize(&vector);
        noisy.push(Inference { output_hash: output_hash(i.model_id, &i.input_hash, &q), quantized: q, vector, ..i.clone() });
    }
    let verdicts = compare("noise std 0.01 vs honest", &noisy, &honest);
    assert!(verdicts.iter().all(|v| !v.accepted && v.hash_matches));
    // One component off by three steps, hash recomputed to match: still rejected.
    let mut one_off = claim(&honest[5]);
    one_off.quantized[17] = one_off.quantized[17].saturating_add(if one_off.quantized[17] > 0 { -3 } else { 3 });
    one_off.output_hash = output_hash(&one_off.model_id, &one_off.input_hash, &one_off.quantized);
    let v = verify(&one_off, &claim(&honest[5]), Tolerance::default());
    assert!(v.hash_matches && !v.accepted && v.max_abs_diff == 3 && cosine_i8(&one_off.quantized, &honest[5].quantized) > 0.99);
}
