"""Hypothesis fuzzing of the loaders tests/data does not fuzz yet (ReDial movies, generic ratings,
AB-ReDial dialogue and turn level, USS-ReDial, Serendipity-2018, Taobao, the judged-dialogue JSON):
truncation, flipped and inserted bytes (non-UTF-8 included), duplicated and dropped lines, huge
lines. Seeds are the first lines of the real files (skipped when ../shared/data is absent) or
hand-written. Only a CrsevalError naming the file may come out."""

import json
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crseval.core.errors import CrsevalError
from crseval.data import load_dataset
from crseval.data.judged import load_judged

REAL = {  # dataset → (shared file to take the head of, lines kept, companion files copied unchanged)
    "redial-movies": ("redial/movies_id2info.json", None, ()),
    "ab-redial": ("judgments/ab_redial/annotated_dialogues.csv", 6, ()),
    "ab-redial-turns": ("judgments/ab_redial/annotated_turns.csv", 6, ()),
    "uss-redial": ("judgments/uss_redial/ReDial.txt", 40, ()),
    "serendipity2018": (
        "serendipity/serendipity2018/answers_with_gpt_rating.csv",
        8,
        ("serendipity/serendipity2018/movies.csv",),
    ),
    "taobao-serendipity": ("serendipity/taobao/umap2020_TSD_Wang.csv", 6, ()),
}
HAND = {
    "ratings": "item,rater,fluency,helpfulness\nd1,r1,3,4\nd1,r2,4,4\nd2,r1,2,5\n",
    "judged": json.dumps(
        [
            {
                "conv_id": "c1",
                "dial_level_aggregated": {"overall": 3.5},
                "dialogue": [
                    {"role": "user", "utterance": "hi, a comedy?"},
                    {
                        "role": "assistant",
                        "utterance": "Try Superbad.",
                        "turn_level_aggregated": {"relevance": 4},
                    },
                ],
            }
        ]
    ),
}
FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def mutate(data, raw: bytes) -> bytes:
    op = data.draw(
        st.sampled_from(["truncate", "flip", "insert", "dup_line", "drop_line", "huge_line"])
    )
    pos = data.draw(st.integers(0, max(0, len(raw) - 1)))
    lines = raw.split(b"\n")
    if op == "truncate":
        return raw[:pos]
    if op == "flip":
        return raw[:pos] + bytes([data.draw(st.integers(0, 255))]) + raw[pos + 1 :]
    if op == "insert":
        return raw[:pos] + data.draw(st.binary(min_size=1, max_size=20)) + raw[pos:]
    if op == "dup_line":
        return b"\n".join(lines + lines[1:3])
    if op == "drop_line":
        k = pos % max(1, len(lines))
        return b"\n".join(lines[:k] + lines[k + 1 :])
    return raw + b"\n" + b"x," * 200_000


def _seed(shared, name: str, tmp_path):
    rel, keep, companions = REAL[name]
    src = shared(rel)
    raw = src.read_bytes()
    if keep is None:  # a JSON object: keep its first entries
        obj = json.loads(raw)
        raw = json.dumps(dict(list(obj.items())[:5])).encode()
    else:
        raw = b"\n".join(raw.split(b"\n")[:keep]) + b"\n"
    for c in companions:
        shutil.copy(shared(c), tmp_path / shared(c).name)
    return tmp_path / src.name, raw


def _load(name: str, path):
    if name == "judged":
        return load_judged(path)
    if name == "ratings":
        from crseval.data.ratings import load_ratings

        return load_ratings(path, item_col="item", rater_col="rater")
    return load_dataset(name, path)


@pytest.mark.parametrize("name", sorted(REAL) + sorted(HAND))
def test_the_unmutated_seed_loads(shared, tmp_path, name):
    path, raw = (
        _seed(shared, name, tmp_path)
        if name in REAL
        else (tmp_path / f"{name}.dat", HAND[name].encode())
    )
    path.write_bytes(raw)
    assert _load(name, path) is not None


@FUZZ
@given(data=st.data())
@pytest.mark.parametrize("name", sorted(REAL) + sorted(HAND))
def test_fuzzed_loader_input_only_raises_crseval_errors(shared, tmp_path_factory, data, name):
    tmp = tmp_path_factory.mktemp("fz")
    path, raw = (
        _seed(shared, name, tmp) if name in REAL else (tmp / f"{name}.dat", HAND[name].encode())
    )
    path.write_bytes(mutate(data, raw))
    try:
        _load(name, path)
    except CrsevalError as e:
        assert e.file is not None, str(e)
