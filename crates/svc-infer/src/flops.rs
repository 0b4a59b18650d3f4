//! Floating-point operations of one forward pass, computed from the model's shape and the token
//! count (the node recomputes this; it is never taken from the miner).

use crate::bert::BertConfig;
use crate::registry::Pooling;

/// FLOPs of the matrix products for one input of `tokens` tokens ([CLS] and [SEP] included, no
/// padding): a multiply-add counts 2. Per layer, with n tokens, hidden h and feed-forward f:
/// QKV 6nh² + attention scores 2n²h + attention-weighted values 2n²h + output 2nh² + FFN 4nhf.
/// The pooler adds 2h². Embedding lookups, layer norms, softmax and GELU are not counted.
pub fn forward_flops(config: &BertConfig, pooling: Pooling, tokens: usize) -> u64 {
    let n = tokens as u64;
    let h = config.hidden as u64;
    let f = config.intermediate as u64;
    let per_layer = 8 * n * h * h + 4 * n * n * h + 4 * n * h * f;
    let pooler = match pooling {
        Pooling::Mean => 0,
        Pooling::ClsPooler => 2 * h * h,
    };
    config.layers as u64 * per_layer + pooler
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find_model;

    #[test]
    fn minilm_l6_at_ten_tokens() {
        let m = find_model("svc-embed-small@v1.0").unwrap();
        // 6 * (8*10*384² + 4*100*384 + 4*10*384*1536) = 6 * (11_796_480 + 153_600 + 23_592_960)
        assert_eq!(forward_flops(&m.config, m.pooling, 10), 213_258_240);
    }

    #[test]
    fn grows_quadratically_in_attention_only() {
        let m = find_model("svc-classify-small@v1.0").unwrap();
        let one = forward_flops(&m.config, m.pooling, 1);
        let two = forward_flops(&m.config, m.pooling, 2);
        let h = m.config.hidden as u64;
        // Doubling n doubles the linear terms and quadruples the n² term; the pooler stays.
        let pooler = 2 * h * h;
        let lin = 12 * (8 * h * h + 4 * h * m.config.intermediate as u64);
        let quad = 12 * 4 * h;
        assert_eq!(one, lin + quad + pooler);
        assert_eq!(two, 2 * lin + 4 * quad + pooler);
    }
}
