"""The study's LDA topic extractor: NLTK's tokenisation exactly, gensim's inference exactly (batched),
per-text seeds (order-independent), and clear errors."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("gensim")
pytest.importorskip("punkt")
from nltk.tokenize import NLTKWordTokenizer  # noqa: E402
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer  # noqa: E402

from crseval.core.errors import CrsevalError  # noqa: E402
from crseval.text.thesis_lda import NLTK_STOPWORDS, ThesisLDA, _tokenizers, preprocess, text_seed  # noqa: E402
from crseval.text.wordnet_nouns import lemmatize  # noqa: E402

TRICKY = [
    "I can't decide if I'd enjoy it, or be scared by it.",
    "\"Quoted\" start -- and 'single' quotes' end.",
    "We cannot go; gonna wanna gotta lemme gimme more'n d'ye 'tis 'twas.",
    "Dr. Strange vs. Mr. Smith, e.g. 3.5.",
    "Sci-fi (1982) [great] {ok} <tag> & #1 @you 50% $5*",
    "It’s “curly” ‘quotes’ — en–dash… ellipsis...",
    'Who? Me! Ends with a quote."',
    "trailing comma,",
    "colon: 1,000 and 2:30",
    "ÇA N'EST PAS can’t won’t",
    "Don't stop. Won't stop. 'Ello 'ow are ya?",
    "''double single'' ``backticks``",
    "a.b.c. end.)",
    ".",
    "",
]


def nltk_word_tokenize(text: str) -> list[str]:
    """``nltk.word_tokenize`` with the English Punkt parameters the study used (no nltk_data download)."""
    import punkt.data.english as english

    params = PunktParameters()
    params.abbrev_types, params.collocations = set(english.ABBREV_TYPES), set(english.COLLOCATIONS)
    params.sent_starters, params.ortho_context = (
        set(english.SENT_STARTERS),
        defaultdict(int, english.ORTHO_CONTEXT),
    )
    words = NLTKWordTokenizer()
    return [t for s in PunktSentenceTokenizer(params).tokenize(text) for t in words.tokenize(s)]


def test_word_tokenizer_equals_nltk_on_tricky_sentences():
    words = _tokenizers()[1]
    for s in TRICKY + [s.lower() for s in TRICKY]:
        assert words.tokenize(s) == NLTKWordTokenizer().tokenize(s), s


@settings(max_examples=500, deadline=None)
@given(
    st.text(
        alphabet=list("abcnotwisdmlvreNTSD .,:;?!'\"`()[]{}<>-–—…’”“«»*&$@#%0123 \t\n\u00a0Çç"),
        max_size=60,
    )
)
def test_word_tokenizer_equals_nltk_on_random_text(s):
    assert _tokenizers()[1].tokenize(s) == NLTKWordTokenizer().tokenize(s)


def test_preprocess_is_the_studys_pipeline():
    for text in TRICKY:
        expected = [
            lemmatize(t)
            for t in nltk_word_tokenize(text.lower())
            if t.isalpha() and t not in NLTK_STOPWORDS and len(t) > 2
        ]
        assert preprocess(text) == expected, text
    assert preprocess("The Movies were about ghosts and stories.") == ["movie", "ghost", "story"]


def test_preprocess_equals_nltk_on_the_study_logs(shared):
    logs = sorted(shared("preference_shift/logs").glob("*_session_*.json"))[::60]
    texts = [t["text"] for f in logs for t in json.loads(f.read_text())["conversation"]]
    for text in texts:
        expected = [
            lemmatize(t)
            for t in nltk_word_tokenize(text.lower())
            if t.isalpha() and t not in NLTK_STOPWORDS and len(t) > 2
        ]
        assert preprocess(text) == expected
    assert len(texts) > 1500


def make_tiny_lda(folder):
    """A small gensim LDA saved the way the study saved its model (float32, 6 topics) into ``folder``."""
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    docs = [
        ["space", "alien", "ship", "planet"],
        ["love", "romance", "wedding", "heart"],
        ["ghost", "horror", "house", "fear"],
        ["war", "soldier", "battle", "army"],
        ["comedy", "laugh", "friend", "party"],
        ["crime", "police", "murder", "detective"],
    ] * 20
    dictionary = Dictionary(docs)
    model = LdaModel(
        [dictionary.doc2bow(d) for d in docs],
        num_topics=6,
        id2word=dictionary,
        passes=3,
        random_state=1,
    )
    model.save(str(folder / "lda.model"))
    dictionary.save(str(folder / "lda.dict"))
    return folder


@pytest.fixture(scope="module")
def tiny_lda(tmp_path_factory):
    return make_tiny_lda(tmp_path_factory.mktemp("lda"))


def test_batched_inference_equals_gensim_document_by_document(tiny_lda):
    from gensim.models import LdaModel

    lda, model = ThesisLDA(tiny_lda), LdaModel.load(str(tiny_lda / "lda.model"))
    texts = [
        "A ghost in the house, fear everywhere.",
        "Soldiers at war; the army wins the battle.",
        "Love and romance at a wedding party with friends.",
        "nothing known here",
        "",
        "Aliens land their ship on a planet; police detective investigates the murder.",
    ]
    bows = [lda.dictionary.doc2bow(preprocess(t)) for t in texts]
    start = lda.initial_gamma([text_seed(t) for t in texts])
    batched = lda.inference(bows, [0] * len(texts), gamma=start.copy())

    class Fixed:  # gensim draws the starting gamma from model.random_state: hand it ours
        def __init__(self, row):
            self.row = row

        def gamma(self, shape, scale, size):
            return self.row[None, :]

    for i, bow in enumerate(bows):
        model.random_state = Fixed(start[i])
        reference, _ = model.inference([bow])
        np.testing.assert_allclose(batched[i], reference[0], rtol=2e-5)


def test_topics_are_seeded_per_text_whatever_the_order(tiny_lda):
    texts = [
        "A ghost in the house, fear everywhere.",
        "Soldiers at war; the army wins the battle.",
        "just words",
    ]
    forward, backward = ThesisLDA(tiny_lda).extract(texts), ThesisLDA(tiny_lda).extract(texts[::-1])
    assert forward == backward[::-1]
    assert forward[0] and all(len(t) == 5 for t in forward[:2])
    assert "ghost" in forward[0] and "war" in forward[1]


def test_the_study_model_loads_and_names_its_topics(shared):
    folder = shared("preference_shift/lda")
    lda = ThesisLDA(folder)
    assert len(lda.top_words) == 50 and all(len(w) == 5 for w in lda.top_words)
    texts = [
        "What kind of story does Elysium tell? That feels deeper than I thought.",
        "",
        "zzz qqq",
    ]
    found = lda.extract(texts)
    assert found[0] in lda.top_words and found[1:] == [
        (),
        (),
    ]  # no known word: the prior, no topic ≥ .1
    assert ThesisLDA(folder).extract(texts[::-1]) == found[::-1]


def test_missing_or_foreign_folder_is_a_clear_error(tmp_path):
    with pytest.raises(CrsevalError, match="no lda.model, lda.dict"):
        ThesisLDA(tmp_path)
    (tmp_path / "lda.model").write_text("not a model")
    (tmp_path / "lda.dict").write_text("not a dictionary")
    with pytest.raises(CrsevalError, match="cannot read the LDA model"):
        ThesisLDA(tmp_path)
