//! svc-embed-small@v1.0 on the real all-MiniLM-L6-v2 weights against sentence-transformers.

mod common;

use common::{cosine, model_dir, reference, small};
use svc_infer::{Backend, Model};

#[test]
fn matches_sentence_transformers_on_varied_sentences() {
    let model = Model::load(&small(), &model_dir(), Backend::Cpu).expect("svc-embed-small loads from the model cache");
    let refs = reference();
    assert!(refs.len() >= 50, "at least 50 reference sentences");
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    // Batches of 32 pad (attention over each sequence's own tokens, attention.rs); one input per call
    // does not.
    for batch in [32, 1] {
        let out = model.embed(&texts, batch).unwrap();
        let mut worst = 1.0f64;
        for (r, e) in refs.iter().zip(&out) {
            assert_eq!(e.vector.len(), 384);
            assert_eq!(e.tokens, r.tokens, "token count of {:?}", r.text);
            let c = cosine(&e.vector, &r.embedding);
            worst = worst.min(c);
            assert!(c >= 0.9999, "batch {batch}: cosine {c} for {:?}", r.text);
        }
        eprintln!("batch {batch}: worst cosine against sentence-transformers over {} sentences: {worst:.9}", refs.len());
    }
}

#[test]
fn covers_empty_long_non_ascii_and_emoji_inputs() {
    let refs = reference();
    assert!(refs.iter().any(|r| r.text.is_empty()));
    assert!(refs.iter().any(|r| r.tokens == small().max_seq_len), "an input truncated at the max length");
    assert!(refs.iter().any(|r| r.text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))));
    assert!(refs.iter().any(|r| r.text.chars().any(|c| ('\u{1f300}'..='\u{1faff}').contains(&c))));
}
