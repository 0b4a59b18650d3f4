//! The canonical output of a model run and its commitment.
//!
//! Floats differ in the last bits between CPU, CUDA and MPS, so the chain never compares raw floats.
//! The canonical output is the L2-normalised vector quantised to int8 with `round(127 * x)`
//! (half away from zero, clamped to [-127, 127]). `output_hash` commits to it:
//!
//! ```text
//! output_hash = BLAKE3( "svc/inference-output/v1"          23 ASCII bytes, domain separation
//!                     || u8  len(model_id) || model_id      ASCII, e.g. "svc-embed-small@v1.0"
//!                     || input_hash                         32 bytes
//!                     || u16 big-endian dims
//!                     || dims bytes: the int8 vector as two's complement )
//! input_hash  = BLAKE3( UTF-8 bytes of the task input )
//! ```
//!
//! A spot-check accepts a claim when the hash matches the carried vector and that vector agrees
//! with the recomputed one within `Tolerance` (see docs/inference.md for the measurements).

/// Domain tag that starts every output commitment.
pub const OUTPUT_HASH_DOMAIN: &[u8] = b"svc/inference-output/v1";

/// The int8 scale: a unit vector's components map to [-127, 127].
pub const QUANT_SCALE: f32 = 127.0;

/// Quantises an L2-normalised vector to int8 (`round(127 * x)`, clamped).
pub fn quantize(unit: &[f32]) -> Vec<i8> {
    unit.iter().map(|x| (x * QUANT_SCALE).round().clamp(-127.0, 127.0) as i8).collect()
}

/// BLAKE3 of the task input's UTF-8 bytes.
pub fn input_hash(input: &str) -> [u8; 32] {
    *blake3::hash(input.as_bytes()).as_bytes()
}

/// The commitment to a quantised output (encoding in the module docs).
pub fn output_hash(model_id: &str, input_hash: &[u8; 32], quantized: &[i8]) -> [u8; 32] {
    assert!(model_id.len() <= u8::MAX as usize, "model id longer than 255 bytes");
    assert!(quantized.len() <= u16::MAX as usize, "vector longer than 65535");
    let mut h = blake3::Hasher::new();
    h.update(OUTPUT_HASH_DOMAIN);
    h.update(&[model_id.len() as u8]);
    h.update(model_id.as_bytes());
    h.update(input_hash);
    h.update(&(quantized.len() as u16).to_be_bytes());
    let bytes: Vec<u8> = quantized.iter().map(|&q| q as u8).collect();
    h.update(&bytes);
    *h.finalize().as_bytes()
}

/// How far a recomputed output may drift from the carried one and still verify.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Least cosine similarity between the two int8 vectors.
    pub min_cosine: f64,
    /// Largest difference of any int8 component.
    pub max_abs_diff: u32,
}

impl Default for Tolerance {
    fn default() -> Self {
        Self { min_cosine: 0.999, max_abs_diff: 2 }
    }
}

/// What a miner carries in a proof about one output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputClaim {
    pub model_id: String,
    pub input_hash: [u8; 32],
    pub quantized: Vec<i8>,
    pub output_hash: [u8; 32],
}

/// The outcome of checking a claim against a recomputation.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The claimed hash commits to the carried vector, model id and input hash.
    pub hash_matches: bool,
    /// The recomputation is of the same model and input and has the same length.
    pub same_task: bool,
    pub cosine: f64,
    pub max_abs_diff: u32,
    pub accepted: bool,
}

/// Cosine similarity of two int8 vectors (0 when either is zero or the lengths differ).
pub fn cosine_i8(a: &[i8], b: &[i8]) -> f64 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0i64, 0i64, 0i64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (x as i64, y as i64);
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0 || nb == 0 {
        return 0.0;
    }
    dot as f64 / ((na as f64).sqrt() * (nb as f64).sqrt())
}

/// Checks a carried output against the verifier's own run of the same model on the same input.
pub fn verify(claim: &OutputClaim, recomputed: &OutputClaim, tolerance: Tolerance) -> Verdict {
    let hash_matches = output_hash(&claim.model_id, &claim.input_hash, &claim.quantized) == claim.output_hash;
    let same_task = claim.model_id == recomputed.model_id
        && claim.input_hash == recomputed.input_hash
        && claim.quantized.len() == recomputed.quantized.len();
    let cosine = cosine_i8(&claim.quantized, &recomputed.quantized);
    let max_abs_diff = if same_task {
        claim.quantized.iter().zip(&recomputed.quantized).map(|(&a, &b)| (a as i32 - b as i32).unsigned_abs()).max().unwrap_or(0)
    } else {
        u32::MAX
    };
    let accepted =
        hash_matches && same_task && cosine >= tolerance.min_cosine && max_abs_diff <= tolerance.max_abs_diff;
    Verdict { hash_matches, same_task, cosine, max_abs_diff, accepted }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(model: &str, input: &str, q: Vec<i8>) -> OutputClaim {
        let ih = input_hash(input);
        let oh = output_hash(model, &ih, &q);
        OutputClaim { model_id: model.to_owned(), input_hash: ih, quantized: q, output_hash: oh }
    }

    #[test]
    fn quantize_rounds_half_away_from_zero_and_clamps() {
        assert_eq!(quantize(&[0.0, 1.0, -1.0, 0.5 / 127.0, -0.5 / 127.0, 1.5]), vec![0, 127, -127, 1, -1, 127]);
    }

    #[test]
    fn output_hash_follows_the_documented_encoding() {
        let ih = input_hash("hello");
        let q = vec![1i8, -2, 127];
        let mut bytes = b"svc/inference-output/v1".to_vec();
        bytes.push(4);
        bytes.extend_from_slice(b"m@v1");
        bytes.extend_from_slice(&ih);
        bytes.extend_from_slice(&[0, 3, 1, 0xfe, 0x7f]);
        assert_eq!(output_hash("m@v1", &ih, &q), *blake3::hash(&bytes).as_bytes());
        assert_eq!(input_hash("hello"), *blake3::hash(b"hello").as_bytes());
    }

    #[test]
    fn equal_outputs_verify() {
        let a = claim("m@v1.0", "x", vec![10, -20, 30, 100]);
        let v = verify(&a, &a.clone(), Tolerance::default());
        assert!(v.accepted && v.hash_matches && v.max_abs_diff == 0);
    }

    #[test]
    fn a_forged_hash_does_not_verify() {
        let mut a = claim("m@v1.0", "x", vec![10, -20, 30, 100]);
        let r = a.clone();
        a.quantized[0] = 11;
        assert!(!verify(&a, &r, Tolerance::default()).hash_matches);
    }

    #[test]
    fn another_model_or_input_does_not_verify() {
        let a = claim("m@v1.0", "x", vec![10, -20, 30, 100]);
        assert!(!verify(&a, &claim("n@v1.0", "x", vec![10, -20, 30, 100]), Tolerance::default()).accepted);
        assert!(!verify(&a, &claim("m@v1.0", "y", vec![10, -20, 30, 100]), Tolerance::default()).accepted);
    }

    #[test]
    fn drift_beyond_two_steps_does_not_verify() {
        let a = claim("m@v1.0", "x", vec![10, -20, 30, 100]);
        let near = claim("m@v1.0", "x", vec![11, -21, 30, 99]);
        let far = claim("m@v1.0", "x", vec![13, -20, 30, 100]);
        assert!(verify(&a, &near, Tolerance::default()).accepted);
        let v = verify(&a, &far, Tolerance::default());
        assert_eq!(v.max_abs_diff, 3);
        assert!(!v.accepted);
    }
}
