//! svc-embed-medium and svc-classify-small with random weights of their real shapes, through the
//! same loader as the real model; and the loader's errors for missing, wrong and misshapen files.

mod common;

use common::{pinned_to_files_in, real_tokenizer, small};
use svc_infer::random_weights::write_random_checkpoint;
use svc_infer::{find_model, Backend, InferError, Model, ModelSpec, Pooling};

/// Writes random weights for `spec` plus the real tokenizer under `<dir>/<id>/`, pinned to them.
fn random_model(spec: &ModelSpec, dir: &std::path::Path, seed: i64) -> ModelSpec {
    let folder = dir.join(spec.id);
    std::fs::create_dir_all(&folder).unwrap();
    write_random_checkpoint(&spec.config, spec.pooling == Pooling::ClsPooler, &folder.join(spec.weights.name), seed).unwrap();
    std::fs::copy(real_tokenizer(), folder.join(spec.tokenizer.name)).unwrap();
    pinned_to_files_in(spec, dir)
}

fn check_outputs(spec: &ModelSpec, dims: usize) {
    let dir = tempfile::tempdir().unwrap();
    let pinned = random_model(spec, dir.path(), 7);
    let model = Model::load(&pinned, dir.path(), Backend::Cpu).unwrap();
    let long = "token ".repeat(1000);
    let inputs = ["a short input", "", long.as_str(), "ünïcödé 🙂"];
    let out = model.infer(&inputs, 3).unwrap();
    assert_eq!(out.len(), inputs.len());
    for o in &out {
        assert_eq!(o.vector.len(), dims);
        assert_eq!(o.quantized.len(), dims);
        let norm: f32 = o.vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "unit vector, got norm {norm}");
        assert!(o.flops > 0);
        assert_eq!(o.output_hash, svc_infer::output_hash(spec.id, &o.input_hash, &o.quantized));
    }
    assert_eq!(out[2].tokens, spec.max_seq_len, "long input truncated to the max length");
    assert_ne!(out[0].quantized, out[1].quantized);
}

#[test]
fn embed_medium_runs_with_random_weights_of_its_shape() {
    let spec = find_model("svc-embed-medium@v1.0").unwrap();
    assert_eq!((spec.config.layers, spec.config.hidden), (12, 384));
    check_outputs(&spec, 384);
}

#[test]
fn classify_small_runs_with_random_weights_of_its_shape() {
    let spec = find_model("svc-classify-small@v1.0").unwrap();
    assert_eq!((spec.config.layers, spec.config.hidden), (12, 768));
    check_outputs(&spec, 768);
}

#[test]
fn unpinned_files_are_refused() {
    let spec = find_model("svc-embed-medium@v1.0").unwrap();
    let dir = tempfile::tempdir().unwrap();
    random_model(&spec, dir.path(), 1);
    let err = Model::load(&spec, dir.path(), Backend::Cpu).err().expect("refused");
    assert!(matches!(err, InferError::NotPinned { .. }), "{err}");
}

#[test]
fn missing_files_name_the_file_and_folder() {
    let dir = tempfile::tempdir().unwrap();
    let err = Model::load(&small(), dir.path(), Backend::Cpu).err().expect("refused");
    assert!(matches!(err, InferError::MissingFile { file: "model.safetensors", .. }), "{err}");
    assert!(err.to_string().contains("svc-embed-small@v1.0"));
}

#[test]
fn a_corrupted_file_fails_the_hash_check() {
    let spec = find_model("svc-embed-medium@v1.0").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pinned = random_model(&spec, dir.path(), 2);
    let weights = dir.path().join(spec.id).join("model.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&weights, bytes).unwrap();
    let err = Model::load(&pinned, dir.path(), Backend::Cpu).err().expect("refused");
    assert!(matches!(err, InferError::HashMismatch { .. }), "{err}");
}

#[test]
fn a_checkpoint_of_another_shape_is_refused() {
    // Medium's 12-layer checkpoint under small's id: small must not load it by dropping six layers.
    let medium = find_model("svc-embed-medium@v1.0").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(small().id);
    std::fs::create_dir_all(&folder).unwrap();
    write_random_checkpoint(&medium.config, false, &folder.join("model.safetensors"), 3).unwrap();
    std::fs::copy(real_tokenizer(), folder.join("tokenizer.json")).unwrap();
    let spec = pinned_to_files_in(&small(), dir.path());
    let err = Model::load(&spec, dir.path(), Backend::Cpu).err().expect("refused");
    assert!(matches!(err, InferError::UnexpectedTensor { .. }), "{err}");

    // Classify's 768-wide checkpoint under small's id fails on the first tensor's shape.
    let classify = find_model("svc-classify-small@v1.0").unwrap();
    write_random_checkpoint(&classify.config, true, &folder.join("model.safetensors"), 4).unwrap();
    let spec = pinned_to_files_in(&small(), dir.path());
    let err = Model::load(&spec, dir.path(), Backend::Cpu).err().expect("refused");
    assert!(matches!(err, InferError::TensorShape { .. }), "{err}");
}
