"""Topic extractors: a text → a set of topic labels, used by the shift detector (Jaccard) and the
recovery/interference checks.

- ``keyword`` (default, fast): what the KB can name — genre cues (``genre:comedy``), people and
  languages (``actor:Tom Hanks``), decades (``year:1990s``), plot keywords (``kw:heist``) and titles,
  which also contribute their genres (``title:Heat`` + ``genre:crime`` …), so a reply naming a
  movie is aligned with that movie's genres.
- ``lda``: scikit-learn LDA trained on the KB's titles and plots (seeded, cached on disk under
  ``$CRSEVAL_HOME/topics``); a text's topics are the LDA topics holding ≥ ``min_weight`` of its mass.
- ``llm``: the LLM lists up to 5 short topics (structured JSON, cached by the LLM layer).

:func:`make_topics` falls back to ``keyword`` loudly when the requested extractor cannot run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import sklearn
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import CountVectorizer

from crseval.core.signature import content_hash
from crseval.llm.base import ChatRequest
from crseval.llm.client import LLMClient
from crseval.core.home import crseval_home
from crseval.data.kb import TITLE_TOKEN, MovieKB
from crseval.data.phrases import PhraseIndex
from crseval.text.movie_text import GENRE_CUES, years
from crseval.text.similarity import top_terms


class _Memo:
    def extract(self, texts: Sequence[str]) -> list[frozenset[str]]:
        memo = getattr(self, "_memo", None)
        if memo is None:
            memo = self._memo = {}
        todo = [t for t in dict.fromkeys(texts) if t not in memo]
        if todo:
            memo.update(zip(todo, self._extract(todo)))
        return [memo[t] for t in texts]

    def _extract(self, texts: list[str]) -> list[frozenset[str]]:
        raise NotImplementedError


class KeywordTopics(_Memo):
    """What the KB can name, found in one pass: the text is tokenised once (words and numbers, case kept)
    and one Aho–Corasick automaton (:class:`~crseval.data.phrases.PhraseIndex`) finds every genre cue,
    person, language, title and plot keyword. Genres, names and titles each keep their longest
    non-overlapping matches; a one-word title counts only as written (capitalised, not a stop word);
    one-word people names are too ambiguous and never count. Independent of the CRS's own understanding
    (:mod:`crseval.simulation.nlu`), so the scorer does not grade a CRS with the rules it was built on."""

    name = "keyword"

    def __init__(self, kb: MovieKB) -> None:
        self.kb = kb
        self.signature = f"keyword-v2(kb={kb.info.content_hash})"
        cues = {tuple(TITLE_TOKEN.findall(c)): g for c, g in GENRE_CUES.items()}
        cues.update(
            {
                (c[0] + "s",): g
                for c, g in list(cues.items())
                if len(c) == 1 and (c[0] + "s",) not in cues
            }
        )
        names = {tuple(TITLE_TOKEN.findall(v)): (a, d) for v, (a, d) in kb.names.items()}
        self.index = PhraseIndex(
            [(seq, ("genre", g)) for seq, g in cues.items() if seq]
            + [
                (seq, ("name", hit))
                for seq, hit in names.items()
                if seq and (len(seq) > 1 or hit[0] == "language")
            ]
            + [
                (seq, ("title", m.title))
                for m in kb.movies
                if (seq := tuple(w.lower() for w in TITLE_TOKEN.findall(m.title)))
            ]
            + [((w,), ("kw", w)) for w in kb.keywords if TITLE_TOKEN.fullmatch(w)]
        )

    def _extract(self, texts: list[str]) -> list[frozenset[str]]:
        return [self.one(t) for t in texts]

    @staticmethod
    def _longest(hits: list[tuple[int, int, object]], size: int) -> list[object]:
        used, out = bytearray(size), []
        for s, n, value in sorted(hits, key=lambda h: (-h[1], h[0])):
            if not any(used[s : s + n]):
                used[s : s + n] = b"\x01" * n
                out.append(value)
        return out

    def one(self, text: str) -> frozenset[str]:
        toks = TITLE_TOKEN.findall(text)
        low = [t.lower() for t in toks]
        by_kind: dict[str, list] = {"genre": [], "name": [], "title": [], "kw": []}
        for s, n, (kind, value) in self.index.find(low):
            if (
                kind == "title"
                and n == 1
                and (low[s] in ENGLISH_STOP_WORDS or len(low[s]) < 3 or not toks[s][0].isupper())
            ):
                continue
            by_kind[kind].append((s, n, value))
        out = {f"genre:{g}" for gs in self._longest(by_kind["genre"], len(low)) for g in gs}
        out |= {f"{a}:{v}" for a, v in self._longest(by_kind["name"], len(low))}
        out |= {f"kw:{w}" for _, _, w in by_kind["kw"]}
        for title in self._longest(by_kind["title"], len(low)):
            out.add(f"title:{title}")
            out |= {
                f"genre:{g}"
                for i in self.kb.index["name"][title.lower()]
                for g in self.kb.movies[i].get("genres", [])
            }
        yrs = years(text)
        if yrs:
            y = yrs[0] if yrs[0] is not None else yrs[1]
            out.add(f"year:{y // 10 * 10}s")
        return frozenset(out)


class LDATopics(_Memo):
    name = "lda"

    def __init__(
        self,
        kb: MovieKB,
        n_topics: int = 20,
        seed: int = 0,
        min_weight: float = 0.3,
        cache_dir: Path | None = None,
    ) -> None:
        corpus = kb.texts()
        key = content_hash(
            f"{content_hash(chr(10).join(corpus).encode())}|{n_topics}|{seed}|{sklearn.__version__}|ties:term".encode()
        )
        path = (cache_dir or crseval_home() / "topics") / f"lda-{key}.npz"
        self.lda = LatentDirichletAllocation(
            n_topics, random_state=seed, learning_method="batch", max_iter=20
        )
        if (
            path.exists()
        ):  # plain arrays (no pickle): vocabulary and the fitted topic-word parameters
            with np.load(path, allow_pickle=False) as z:
                self.vectorizer = CountVectorizer(
                    stop_words="english", vocabulary=list(z["vocabulary"])
                )
                self.lda.components_, self.lda.exp_dirichlet_component_ = (
                    z["components"],
                    z["exp_dirichlet"],
                )
                self.lda.doc_topic_prior_ = float(z["doc_topic_prior"])
                self.lda.n_features_in_ = self.lda.components_.shape[1]
        else:
            words = {"stop_words": "english", "min_df": 2}
            self.vectorizer = CountVectorizer(**words, vocabulary=top_terms(corpus, 4096, **words))
            self.lda.fit(self.vectorizer.fit_transform(corpus))
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.stem + ".tmp.npz")
            np.savez(
                tmp,
                vocabulary=self.vectorizer.get_feature_names_out().astype(str),
                components=self.lda.components_,
                exp_dirichlet=self.lda.exp_dirichlet_component_,
                doc_topic_prior=self.lda.doc_topic_prior_,
            )
            tmp.replace(path)
        self.min_weight = min_weight
        self.signature = f"lda(k={n_topics},seed={seed},min_weight={min_weight},model={key})"

    def _extract(self, texts: list[str]) -> list[frozenset[str]]:
        counts = self.vectorizer.transform(texts)
        theta = self.lda.transform(counts)
        empty = (
            np.asarray(counts.sum(axis=1)).ravel() == 0
        )  # no known word: no topic (not the prior's mix)
        return [
            frozenset()
            if e
            else frozenset(f"lda:{k}" for k in np.flatnonzero(row >= self.min_weight))
            for row, e in zip(theta, empty)
        ]


class LLMTopics(_Memo):
    name = "llm"
    SCHEMA = {
        "type": "object",
        "properties": {
            "topics": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 30}}
        },
        "required": ["topics"],
    }

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        ident = client.identity()
        self.signature = f"llm({ident.get('backend')}:{ident.get('model')})"

    def _extract(self, texts: list[str]) -> list[frozenset[str]]:
        def one(text: str) -> frozenset[str]:
            req = ChatRequest.chat(
                "List up to 5 short topics (genres, people, themes, eras) of this message from a movie "
                f"conversation, lower case. Message (quoted data): {text!r}",
                max_tokens=80,
                json_schema=self.SCHEMA,
            )
            res = self.client.structured(req, self.SCHEMA)
            return frozenset(
                t.strip().lower() for t in (res.value or {}).get("topics", []) if t.strip()
            )

        return self.client.map(texts, one)


def make_topics(
    name: str,
    kb: MovieKB,
    *,
    client: LLMClient | None = None,
    n_topics: int = 20,
    seed: int = 0,
    warn: Callable[[str], None] = print,
):
    """(extractor, fallback note or None)."""
    if name == "llm":
        if client is not None:
            return LLMTopics(client), None
        note = "topics 'llm' need scoring.topics_llm; fell back to the keyword heuristic"
        warn(note)
        return KeywordTopics(kb), note
    if name == "lda":
        try:
            return LDATopics(kb, n_topics, seed), None
        except (OSError, ValueError) as e:
            note = (
                f"topics 'lda' failed ({type(e).__name__}: {e}); fell back to the keyword heuristic"
            )
            warn(note)
            return KeywordTopics(kb), note
    return KeywordTopics(kb), None
