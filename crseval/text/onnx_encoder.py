"""A saved fine-tuned sentence encoder run by ONNX Runtime: the same vectors as sentence-transformers (cosine
1 − 1e-7 on INSPIRED), without importing torch, transformers or sentence-transformers — about half of the ~15 s a
`behavior implicit --model RUN` command took on 2 cores. ``behavior train --fine-tune`` writes
``encoder/model.onnx`` beside the safetensors (fp32: no quantisation, the vectors are the model's); a run
saved without it, or a machine without ``onnxruntime``, loads the encoder with sentence-transformers as before.

Only the pipeline these encoders have is exported: a transformer, mean pooling over the attention mask, L2
normalisation; anything else is left to sentence-transformers (:func:`export` returns None).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from crseval.core.errors import CrsevalError
from crseval.text.embed import SentenceEncoder, _Memo, shared_sentence_transformer

MODEL, META = "model.onnx", "onnx.json"


def _pipeline_is_mean_normalised(model) -> bool:
    return [type(m).__name__ for m in model][1:] == ["Pooling", "Normalize"] and (
        model[1].get_config_dict().get("pooling_mode") == "mean"
    )


def export(model, folder: str | Path) -> Path | None:
    """Write ``folder/model.onnx`` (and its ``onnx.json``) for a sentence-transformers ``model`` saved in
    ``folder``; None, writing nothing, where its pipeline is not transformer → mean pooling → normalise or
    the ``onnx`` package (needed to export) is missing."""
    import torch

    try:
        import onnx  # noqa: F401  (torch's exporter needs it)
    except ImportError:
        return None
    if not _pipeline_is_mean_normalised(model):
        return None
    folder = Path(folder)
    backbone = model[0].auto_model.eval()
    inputs = [n for n in model.tokenizer.model_input_names if n != "position_ids"]

    # called with keyword arguments: the positional order differs between architectures
    class _Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.backbone = backbone

        def forward(self, *tensors):
            return self.backbone(**dict(zip(inputs, tensors))).last_hidden_state

    sample = model.tokenizer(["a sentence to trace", "b"], padding=True, return_tensors="pt")
    axes = {n: {0: "batch", 1: "tokens"} for n in [*inputs, "hidden"]}
    with torch.no_grad(), warnings.catch_warnings():
        # the tracer's notes on the control flow it records for these shapes
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Hidden(),
            tuple(sample[n] for n in inputs),
            str(folder / MODEL),
            input_names=inputs,
            output_names=["hidden"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
    meta = {"inputs": inputs, "max_length": int(model.max_seq_length)}
    (folder / META).write_text(json.dumps(meta))
    return folder / MODEL


class OnnxEncoder(_Memo):
    """The exported encoder as an Embedder (``name``: the weights', as saved pair models check)."""

    def __init__(self, folder: str | Path, name: str, batch_size: int = 64) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.name, self.batch_size = name, batch_size
        super().__init__(persist=False)
        folder = Path(folder)
        meta = json.loads((folder / META).read_text())
        self.inputs = meta["inputs"]
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()  # batches are padded here, with their own attention mask
        self.tokenizer.enable_truncation(meta["max_length"])
        options = ort.SessionOptions()
        options.log_severity_level = 3
        self.session = ort.InferenceSession(
            str(folder / MODEL), options, providers=["CPUExecutionProvider"]
        )
        self.dim = int(self.session.get_outputs()[0].shape[-1])

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        order = np.argsort([len(t) for t in texts])  # similar lengths share a batch: less padding
        for k in range(0, len(texts), self.batch_size):
            rows = order[k : k + self.batch_size]
            encoded = self.tokenizer.encode_batch([texts[i] for i in rows])
            width = max(len(e.ids) for e in encoded)
            feed = {n: np.zeros((len(rows), width), np.int64) for n in self.inputs}
            for j, e in enumerate(encoded):
                n = len(e.ids)
                feed["input_ids"][j, :n] = e.ids
                feed["attention_mask"][j, :n] = 1
                if "token_type_ids" in feed:
                    feed["token_type_ids"][j, :n] = e.type_ids
            hidden = self.session.run(None, feed)[0]
            mask = feed["attention_mask"][..., None].astype(np.float32)
            v = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
            out[rows] = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        return out


def load_encoder(folder: str | Path, name: str):
    """The saved encoder in ``folder`` as an Embedder: through ONNX Runtime where it was exported and
    ``onnxruntime`` is installed, else through sentence-transformers."""
    folder = Path(folder)
    if (folder / MODEL).is_file() and (folder / META).is_file():
        try:
            return OnnxEncoder(folder, name)
        except ImportError:  # no onnxruntime here: the safetensors beside it give the same vectors
            pass
        # onnxruntime's own errors (a truncated or foreign file) share no base class to catch
        except Exception as e:
            raise CrsevalError(
                f"unreadable ONNX encoder ({str(e).splitlines()[0][:200]})",
                file=folder / MODEL,
                fix=f"delete {MODEL} and {META} to load the encoder with sentence-transformers",
            ) from None
    return SentenceEncoder(shared_sentence_transformer(str(folder)), name)
