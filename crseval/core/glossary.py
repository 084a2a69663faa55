"""What every result-table column means, read from its table's declaration.

A table (``crseval/core/registry.py: TableSpec``) declares its columns; each resolves here to a
:class:`Column` — label, description, direction, scale, CI partners — from, in order: a metric named by
qualified name (``judge.pearson``), a metric of the table's capability, a context column of
:data:`CONTEXT` (ids, counts, test statistics), or a partner of a declared column by suffix (CI ends
``X_lo``/``X_hi``, ``X_p``, ``X_band``). The report, the glossary, ``compare``, ``crseval metrics`` and
the LaTeX/Markdown tables read columns through :func:`column`; :func:`undeclared` is what the run store
checks every written table against.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any, Iterable

from crseval.core.registry import (
    METRICS,
    MetricSpec,
    TableSpec,
    all_metrics,
    get_table,
    load_declarations,
)

CONTEXT = {
    "ci_lo": ("95 % CI low", "lower end of the 95 % bootstrap CI of the mean"),
    "ci_hi": ("95 % CI high", "upper end of the 95 % bootstrap CI of the mean"),
    "n": ("n", "number of items (dialogues, sessions, answers) the value is computed on"),
    "n_items": ("items", "rated items (dialogues)"),
    "n_raters": ("raters", "distinct raters"),
    "n_ratings": ("ratings", "ratings"),
    "k": ("k", "harmonic mean number of raters per item"),
    "mean": ("mean", "mean over items"),
    "p": ("p", "p-value of the test in the same row"),
    "F": ("F", "one-way ANOVA F statistic"),
    "df_between": ("df₁", "ANOVA degrees of freedom between groups"),
    "df_within": ("df₂", "ANOVA degrees of freedom within groups"),
    "eta_squared": ("η²", "ANOVA effect size: share of variance between groups"),
    "statistic": ("statistic", "the test statistic (t or F)"),
    "test": ("test", "the significance test used"),
    "note": ("note", "why a value could not be computed, or a caveat"),
    "group1": ("group 1", "first group of a Tukey HSD pair"),
    "group2": ("group 2", "second group of the pair"),
    "meandiff": ("mean difference", "mean of group 2 minus mean of group 1"),
    "p_tukey": ("p (Tukey)", "family-wise adjusted p-value (Tukey HSD)"),
    "lower": ("lower", "lower end of the Tukey 95 % interval of the difference"),
    "upper": ("upper", "upper end of the Tukey 95 % interval of the difference"),
    "reject": ("different", "Tukey HSD: the two groups differ at α = .05"),
    "interpretation": (
        "band",
        "Koo & Li (2016) band of Rel_k: poor < .5 ≤ moderate < .75 ≤ good < .9 ≤ excellent",
    ),
    "label": ("label", "display name of the metric"),
    "reference": ("reference", "the reference system a paired difference is taken against"),
    "part": (
        "part",
        "the part (its own run directory) of a run built from other jobs the row comes from",
    ),
    "verdict": (
        "verdict",
        "known groups: held (the AUC's CI above .5), reversed (below .5) or not separated",
    ),
    "evidence": ("evidence", "what a metric's verdict rests on, in words"),
    "wish_category": (
        "what the user asked for",
        "a kind of request in real users' turns that the rule-based wish reading reads, or cannot read",
    ),
    "user_requests": ("requests", "user turns that ask for films (a request cue), of that kind"),
    "request_share": ("share", "their share of all the users' requests"),
    "now_read": (
        "now read",
        "of them, those from which the full reading (a reference film, something new) gains a wish",
    ),
    "reader": ("reader", "how crseval's reader read the seeker's reply"),
    "scheme": ("scheme", "the readings compared: all four, or the one a metric uses"),
    "films": ("films", "films the value is computed on"),
    "agreement": ("agreement", "share of the items on which the two readings agree"),
    "on_card": ("on the card", "whether the report card shows the metric"),
    "battles": (
        "battles",
        "decided battles (a vote, not a tie) in which the metric prefers one CRS",
    ),
    "battles_tied": ("battles tied", "decided battles in which the metric ties the two CRSs"),
    "ranked_by": ("ranked by", "the ranking of the systems the τ is taken with"),
    "criterion_verdict": (
        "real users",
        "predicts (the AUC's and the vote agreement's CIs above .5; 'meets the bar' where they reach .70 "
        "and 65 %), reversed (either below .5) or not shown",
    ),
    "better": ("expected better", "the system a metric should rank higher (known groups)"),
    "worse": ("expected worse", "the system a metric should rank lower (known groups)"),
    "checks": ("checks", "known-groups checks of the metric (other CRSs × lengths)"),
    "held": ("held", "checks where the expected ordering held (the AUC's CI above .5)"),
    "reversed": ("reversed", "checks where the opposite ordering held (the AUC's CI below .5)"),
    "auc_min": ("smallest AUC", "the metric's smallest known-groups AUC"),
    "worst": ("worst check", "the other CRS and length of the smallest AUC"),
    "value": ("value", "the metric's value"),
    "metric": ("metric", "registered metric name"),
    "dimension": ("dimension", "rated dimension"),
    "aspect": ("aspect", "judged aspect"),
    "judge": ("judge", "judge (panel member), or a baseline"),
    "evaluator": ("evaluator", "serendipity evaluator"),
    "model": ("model", "CRS under evaluation"),
    "session": ("session", "session index"),
    "dialogue": ("dialogue", "dialogue id"),
    "turn": ("turn", "turn index (recommender turns for behavior alignment)"),
    "item": ("item", "rated item id"),
    "rank": ("rank", "best / second by Pearson on the answers every evaluator scored"),
    "excluded": ("excluded", "answers without a prediction or ground truth"),
    "dataset": ("dataset", "the user study the row is measured on"),
    "setting": (
        "setting",
        "the auxiliary line added to the zero-shot serendipity prompt (none: the plain prompt)",
    ),
    "history_k": (
        "history k",
        "history items shown to the serendipity evaluator (the last k before the target)",
    ),
    "ensemble_size": (
        "ensemble size",
        "number of evaluators whose predictions are averaged per answer",
    ),
    "subsets": ("subsets", "evaluator subsets of this size (all of them are scored)"),
    "factor": ("factor", "the item property the answers are split by"),
    "tercile": ("tercile", "low / middle / high third of the answers by the factor"),
    "pearson_%_min": ("Pearson (%) min", "the worst subset's Pearson (%)"),
    "pearson_%_max": ("Pearson (%) max", "the best subset's Pearson (%)"),
    "n_same": (
        "n (same answers)",
        "answers every evaluator scored: the ones the ranking compares on",
    ),
    "failed": ("failed", "ratings or sessions that failed and are recorded, not imputed"),
    "level": ("level", "dialogue, turn or system level (system: over per-system means)"),
    "human": (
        "human",
        "the human side: the human recommender's response (behavior) or the mean human label (judge)",
    ),
    "system": ("system", "the system's (CRS) response at the same turn"),
    "human_share": ("human share", "share of the human recommender's responses with this strategy"),
    "system_share": ("system share", "share of the system's responses with this strategy"),
    "strategy": ("strategy", "INSPIRED recommendation strategy"),
    "human_label": (
        "human strategy",
        "strategy of the human recommender's response (label or tagger)",
    ),
    "system_label": ("system strategy", "strategy of the system's response (strategy classifier)"),
    "human_labels": (
        "human sentence strategies",
        "strategies of the human turn's labelled sentences, in order",
    ),
    "system_sentence_labels": (
        "system sentence strategies",
        "strategy of each sentence of the system's response (strategy classifier)",
    ),
    "system_recommends": ("system recommends", "the system's response names a movie"),
    "user": ("user", "user id, or the simulated user's utterance (shift turns)"),
    "event": (
        "event",
        "what the turn holds: a true (simulated) shift, a detected shift, a recovery",
    ),
    "constraints": ("constraints", "the simulated user's active preferences at the turn"),
    "session_tas": ("session TAS", "TAS of the whole session the turn belongs to"),
    "true_genre": ("start genre", "the genre the simulated user starts from"),
    "error": ("error", "why the rating, response or session failed (empty when it did not)"),
    "judge_failures": (
        "judge failures",
        "judge ratings of the session that failed (recorded, not imputed)",
    ),
    "precision": ("precision", "detected shifts that match a simulated (true) shift"),
    "recall": ("recall", "simulated shifts that were detected"),
    "detected": ("detected", "shifts detected"),
    "true": ("true", "shifts the simulator logged (ground truth)"),
    "true_positive": ("true positives", "detected shifts that match a true shift"),
    "automatic": ("automatic metric", "automatic (TAS family) metric"),
    "pearson_r": ("Pearson r", "Pearson correlation"),
    "spearman_rho": ("Spearman ρ", "Spearman rank correlation"),
    "with": ("compared with", "the human reference the judge is correlated with"),
    "group": ("group", "the group of dialogues the row summarises"),
    "outcome": ("outcome", "the seeker's outcome recorded with the dialogue"),
    "method": (
        "method",
        "'expected': probability-weighted over the scale; 'sampled': one sampled rating",
    ),
    "cluster": ("cluster", "Ward cluster of the dimension on the correlation distance"),
    "rater": ("rater", "rater id"),
    "reason": ("reason", "why quality control flagged the rater"),
    "items": ("items", "items (dialogues)"),
    "raters per item": ("raters per item", "raters who rated an item"),
    "gold items excluded": (
        "gold items excluded",
        "attention-check items left out of the reliability",
    ),
    "raters flagged": ("raters flagged", "raters quality control flagged"),
    "raters retained": ("raters retained", "raters whose ratings enter the reliability"),
    "items retained": ("items retained", "items that enter the reliability"),
    "ratings retained": ("ratings retained", "ratings that enter the reliability"),
    "raters per item (min)": ("raters per item (min)", "fewest raters of an item"),
    "raters per item (max)": ("raters per item (max)", "most raters of an item"),
    "harmonic mean k": (
        "harmonic mean k",
        "harmonic mean of raters per item (the k of ICC(1,k) and Rel_k)",
    ),
    "length": ("length", "characters of the judged text (the length baseline)"),
    "abs_error_p": (
        "p vs best baseline",
        "Wilcoxon signed-rank test of absolute errors against the best baseline",
    ),
    "vs_best_baseline": ("best baseline", "the baseline with the lowest MAE"),
    "significant": ("significant", "abs_error_p < .05"),
    "ground_truth": ("ground truth", "user-study answer, 1–5"),
    "versus": ("versus", "the judge (or baseline) the row's judge is compared with"),
    "data": ("data", "the labelled set the row is computed on"),
    "test_data": ("test data", "the labelled set the fitted judge never saw"),
    "feature": ("feature", "transcript feature or LLM reading the calibrated judge uses"),
    "alpha": ("ridge α", "ridge penalty chosen by grouped cross-validation"),
    "scale": ("scale", "the human scale of the aspect"),
    "difference": ("difference", "paired difference"),
    "degenerate": (
        "degenerate",
        "the panel's members give identical readings (one judge counted several times)",
    ),
    "best_member": ("best member", "the panel member with the highest Pearson r"),
    "best_member_pearson": ("best member r", "Pearson r of the best panel member"),
    "panel_pearson": ("panel r", "Pearson r of the panel mean"),
    "mean_score": ("mean score", "mean judge score over the system's dialogues"),
    "mean_human": ("mean human", "mean human label over the system's dialogues"),
    "systems": ("systems", "number of systems compared"),
    "vote_set": ("vote set", "the votes the row is computed from (a file, or all files combined)"),
    "vote_set_a": ("vote set A", "first vote set"),
    "vote_set_b": ("vote set B", "second vote set"),
    "opponent": ("opponent", "the other system of the pair"),
    "rank_lo": ("rank low", "best rank in the 95 % bootstrap interval"),
    "rank_hi": ("rank high", "worst rank in the 95 % bootstrap interval"),
    "direct_pairs": ("direct pairs", "system pairs with a decisive majority in both vote sets"),
    "dialogues": ("dialogues", "dialogues the value is computed on"),
    "design": (
        "design",
        "pair-classifier design (Original, Mixed-hard) or protocol the row measures",
    ),
    "encoder": ("encoder", "sentence encoder of the pair classifier (frozen or fine-tuned)"),
    "fold accuracy": (
        "fold accuracy",
        "accuracy per cross-validation fold, or the pairs a single score used",
    ),
    "source": (
        "source",
        "simulated model, or the human split half (the floor a perfect simulator reaches)",
    ),
    "system_turns": ("system turns", "turns of the system (CRS) in the dialogue"),
    "position": (
        "position",
        "index of the turn in the dialogue (both speakers counted, 0 = first)",
    ),
    "grounded": ("grounded", "named titles matched to a catalogue item"),
    "out_of_catalogue": ("out of catalogue", "named titles no catalogue item matches"),
    "repeated": ("repeated", "recommendations of an item already named in the dialogue"),
    "rejected_repeats": (
        "rejected repeats",
        "recommendations re-offering an item the user rejected or had seen",
    ),
    "item_ids": ("item ids", "catalogue ids of the grounded titles"),
    "titles": (
        "titles",
        "titles as named (labelled mentions or what the matcher found in the text)",
    ),
    "recommending_dialogues": (
        "recommending dialogues",
        "dialogues in which the system names at least one title",
    ),
    "reading": (
        "reading",
        "'title': each labelled mention's title string grounded alone; 'text': the utterance "
        "text read by the matcher",
    ),
    "mentions": ("mentions", "labelled mentions (ReDial @id, INSPIRED movie lists)"),
    "in_catalogue": ("in catalogue", "labelled mentions whose item is in the catalogue"),
    "found": ("found", "items the matcher found"),
    "correct": ("correct", "items found that are the labelled ones"),
    "fuzzy": (
        "fuzzy",
        "titles grounded by a fuzzy (rapidfuzz) match rather than an exact title key",
    ),
    "ambiguous": (
        "ambiguous",
        "titles under which the catalogue holds several items, told apart by no year",
    ),
    "false_out_of_catalogue": (
        "false out-of-catalogue",
        "title-like spans left out of catalogue in utterances whose "
        "labelled items are all in the catalogue",
    ),
    "utterances": ("utterances", "utterances read"),
    "crs1": ("system 1", "first system of the voted pair"),
    "crs2": ("system 2", "second system of the voted pair"),
    "vote": ("vote", "the winning system, or tie"),
    "line": ("line", "line of the vote in its file (the vote order)"),
    "feedback": ("feedback", "the voter's free-text feedback, where given"),
    "order": ("order", "which dialogue the judge read first (ab: system 1's)"),
    "p_crs1_first": (
        "P(1 better), 1 first",
        "the judge's probability that system 1's dialogue is better, read first",
    ),
    "p_crs1_second": (
        "P(1 better), 1 second",
        "the same with system 1's dialogue read second (position swap)",
    ),
    "position_consistent": (
        "position consistent",
        "both orders prefer the same dialogue (else the vote is a tie)",
    ),
    "davidson_nu": (
        "Davidson ν",
        "tie parameter of Davidson's model: P(tie) = ν√(πᵢπⱼ) / (πᵢ + πⱼ + ν√(πᵢπⱼ))",
    ),
    "mdd": (
        "detectable difference",
        "the smallest true difference these paired units detect with 80 % power at p < .05 (2.8 standard "
        "errors); inf: too few units for the permutation test to reach p < .05",
    ),
    "p_holm": (
        "p (Holm)",
        "p-value adjusted by Holm's method over the table's tests at the same level",
    ),
    "user_turns": ("user turns", "simulated user turns"),
    "sessions": ("sessions", "sessions the value is computed on"),
    "leaked_turns": (
        "leaked turns",
        "user turns naming a catalogue title the CRS had not named yet",
    ),
    "leak_turn_share": ("leak share", "share of user turns that name a title before the CRS does"),
    "sessions_with_leak": ("sessions with leak", "share of sessions with at least one leaked turn"),
    "kind": ("kind", "kind of logged shift (genre, year, actor, …)"),
    "shifts": ("shifts", "shifts the simulator logged"),
    "stated_share": ("stated", "share of logged shifts whose new value the user's words state"),
    "reverted_share": (
        "reverted",
        "share of logged shifts whose old value the user names again before the next",
    ),
    "shifts_stated": (
        "shifts stated",
        "share of logged shifts whose new value the user's words state",
    ),
    "shifts_reverted": (
        "shifts reverted",
        "share of logged shifts whose old value comes back before the next",
    ),
    "turns": ("turns", "turns the value is computed on"),
    "words_per_turn": ("words/turn", "mean words per user turn"),
    "human_words_per_turn": ("human words/turn", "mean words per human seeker turn"),
    "unseen_vocabulary": (
        "unseen vocabulary",
        "share of the simulated users' words no human seeker used",
    ),
    "act_tv_distance": (
        "act distance",
        "total-variation distance between the dialogue-act mixes (0 = same)",
    ),
    "user_feature": (
        "feature",
        "a user-turn cue (words per turn; shares of turns with a question, a title, acceptance, rejection "
        "or complaint, a greeting, thanks, a closing) or turns (user turns per dialogue)",
    ),
    "simulated": ("simulated", "the simulated users' value"),
    "real": ("real users", "the real users' value"),
    "gap": ("gap", "|simulated − real|"),
    "human_floor": (
        "human floor",
        "mean |half − half| between two random halves of the real users (split by user, 20 splits)",
    ),
    "within_floor": ("within floor", "the gap is at most twice the human floor"),
    "compared": (
        "compared",
        "whose turns the row sets against the real users': simulated users, another human source, or "
        "the floor (two halves of the real users)",
    ),
    "real_turns": ("real turns", "real user turns the classifier saw"),
    "real_diff": (
        "real Δ",
        "mean over battles: with the CRS the user voted for − the one voted against",
    ),
    "real_lo": ("real Δ low", "lower end of its 95 % bootstrap CI"),
    "real_hi": ("real Δ high", "upper end of its 95 % bootstrap CI"),
    "real_pairs": ("battles", "decided battles both of whose dialogues are in the reference"),
    "sim_diff": ("simulated Δ", "mean over simulated users: with the follower − with the ignorer"),
    "sim_lo": ("simulated Δ low", "lower end of its 95 % bootstrap CI"),
    "sim_hi": ("simulated Δ high", "upper end of its 95 % bootstrap CI"),
    "sim_pairs": ("simulated users", "simulated users who met both CRSs"),
    "sign_agrees": ("same sign", "the simulated difference has the real one's sign"),
    "real_clear": ("real Δ clear", "the real difference's 95 % CI excludes 0"),
    "satisfied": ("satisfied", "share of dialogues ending with the user satisfied"),
    "frustrated": ("frustrated", "share of dialogues ending with the user frustrated"),
    "still_open": (
        "open",
        "share of simulated sessions that reached their length with the user still talking",
    ),
    "frechet": (
        "Fréchet distance",
        "Fréchet distance between sentence-embedding distributions (lower = closer)",
    ),
    "sim_shift": (
        "similarity threshold",
        "a shift when consecutive user turns are less similar than this",
    ),
    "jaccard_shift": ("Jaccard threshold", "a shift when their topic overlap is lower than this"),
    "f1": ("F1", "harmonic mean of precision and recall"),
    "verified": (
        "verified measure",
        "the verified preference-following measure the metric is correlated with",
    ),
    "k_sessions": ("k", "repeated sessions of one simulated user that must all succeed"),
    "pass_k": (
        "pass^k",
        "chance that k repeated sessions of the same simulated user all succeed (every shift "
        "followed), mean over users of C(successes, k) / C(sessions, k)",
    ),
    "users": ("users", "simulated users (each met the CRS in several sessions)"),
    "pearson_p": ("Pearson p", "p-value of the Pearson correlation"),
    "spearman_p": ("Spearman p", "p-value of the Spearman correlation"),
    "raters": ("raters", "who the raters are: people, judge panel members, or both"),
    "file": ("file", "the file the row was read from"),
    "in_scale": ("in scale", "the score lies on the scale the study declared"),
    "n_judges": ("judges", "panel members averaged"),
    "spearman_brown_icc": (
        "reliability of the mean",
        "Spearman–Brown reliability of the mean of n members, from their ICC(1)",
    ),
    "pearson_with_human": ("r with people", "Pearson r of the mean of n members with the people"),
    "measure": ("measure", "what the row measures"),
    "sentences": ("sentences", "labelled sentences the value is computed on"),
    "texts": ("texts", "distinct sentence texts among them"),
    "pairs": ("pairs", "sentence pairs scored"),
    "same_strategy_pairs": ("same-strategy pairs", "pairs whose two sentences share a strategy"),
    "published": ("published", "the value the study published"),
    "reproduced": ("reproduced", "crseval's value on the study's logs"),
    "abs_diff": ("|difference|", "absolute difference of published and reproduced"),
    "worst_share": (
        "worst share",
        "share of turns answered with the worst system's response (the rest: the ideal's)",
    ),
    "ensemble": ("ensemble", "the LLM evaluators whose predictions are averaged"),
    "size": ("size", "evaluators in the ensemble"),
    "confused_1": ("most confused with", "the strategy the class is most often predicted as"),
    "share_1": ("share", "share of the class's sentences predicted as it"),
    "confused_2": ("next most confused with", "the second most frequent wrong prediction"),
    "share_2": ("share", "share of the class's sentences predicted as it"),
    "tagger": ("tagger", "strategy tagger (classifier or LLM prompt)"),
    "unparsed": ("unparsed", "LLM answers that named no strategy (counted as wrong)"),
    "backend": ("backend", "LLM backend (llamacpp, openai, scripted)"),
    "requests": (
        "requests",
        "requests that reached the backend (retries included, cache hits not)",
    ),
    "cache_hits": ("cache hits", "answers served from the run's LLM cache"),
    "cache_misses": ("cache misses", "prompts not in the cache"),
    "retries": ("retries", "requests repeated after a transient error"),
    "failures": ("failures", "requests that failed after every retry"),
    "parse_failures": ("parse failures", "answers the parser could not read"),
    "repairs": ("repairs", "answers read after a repair prompt"),
    "prompt_tokens": ("prompt tokens", "tokens of the prompts sent"),
    "completion_tokens": ("completion tokens", "tokens generated"),
    "llm_seconds": (
        "LLM seconds",
        "seconds inside LLM calls, summed over calls (queueing included)",
    ),
    "wait_s": (
        "wait (s)",
        "seconds calls queued for a free slot or for the embedded model other roles were using",
    ),
    "busy_s": (
        "busy (s)",
        "seconds the model worked for the role: the union of its calls' intervals (overlaps once)",
    ),
    "role": (
        "role",
        "what the LLM answered for: the CRS, the simulated user, the judge, the serendipity evaluator, …",
    ),
    "cost_usd": (
        "cost (USD)",
        "tokens × the LLM config's prices per million tokens (empty: no prices)",
    ),
    "base_url": ("base URL", "the server of an OpenAI-compatible backend"),
    "gguf": ("GGUF", "the embedded model's file"),
    "n_ctx": ("context", "the embedded model's context window (tokens)"),
    **{
        f"act_{a}": (f"act: {a}", f"share of user turns whose rule-based dialogue act is {a}")
        for a in ("greeting", "question", "request", "feedback", "other")
    },
}


# derived columns: suffix → what it is of the column it qualifies. One naming: a CI is X_lo / X_hi (a
# mean's: ci_lo / ci_hi); a p-value is p (the row's test), X_p (the test of X) or p_<correction>.
PARTNERS = (
    ("_lo", "lower end of the 95 % CI of"),
    ("_hi", "upper end of the 95 % CI of"),
    ("_p", "p-value of"),
    ("_band", "Koo & Li band of"),
    ("_anova", "ANOVA (moment) estimate of"),
)
# columns renamed to that naming in 0.2; the old names are still read for one release (deprecated)
RENAMED = {
    "ci_low": "ci_lo",
    "ci_high": "ci_hi",
    "kappa_ci_low": "kappa_lo",
    "kappa_ci_high": "kappa_hi",
    "p_value": "p",
    "p_adj": "p_tukey",
    "p_pearson": "pearson_%_p",
    "p_abs_error": "abs_error_p",
    "p_t_abs_error": "abs_error_t_p",
    "difference_lo": "pearson_difference_lo",
    "difference_hi": "pearson_difference_hi",
}


def renamed(column: str) -> str | None:
    """The current name of a column written under an older name (``bt_low`` → ``bt_lo``), else None."""
    if column in RENAMED:
        return RENAMED[column]
    for old, new in (("_low", "_lo"), ("_high", "_hi")):
        if column.endswith(old) and column != old[1:]:
            return column[: -len(old)] + new
    return None


@dataclass(frozen=True)
class Column:
    name: str
    label: str
    description: str
    higher_is_better: bool | None = None  # None: context, a count, a CI end
    metric: str = ""  # the qualified metric it holds, if it holds one
    scale: str = ""
    ci: tuple[str, str] | None = None  # its declared CI ends (low, high) in the same table


def _from_metric(name: str, m: MetricSpec) -> Column:
    return Column(name, m.display, m.description, m.higher_is_better, m.qualified, m.scale)


def _meaning(entry: str, capability: str) -> Column | None:
    """The column a table declaration's entry names, or None if nothing defines it. An entry is a
    column name, a qualified metric (its column keeps the metric's name) or ``column=qualified``."""
    name, _, qualified = entry.partition("=")
    if qualified:
        return _from_metric(name, METRICS[qualified]) if qualified in METRICS else None
    if entry in METRICS:  # a qualified name: another capability's metric, under its own name
        return _from_metric(METRICS[entry].name, METRICS[entry])
    own = METRICS.get(f"{capability}.{entry}")
    if own is not None:
        return _from_metric(entry, own)
    if entry in CONTEXT:
        return Column(entry, *CONTEXT[entry])
    return None


def _partner(name: str, known: dict[str, Column]) -> Column | None:
    """A CI end or p-value of a declared column (or of a context quantity such as ``difference``)."""
    for suffix, what in PARTNERS:
        stem = name[: -len(suffix)] if name.endswith(suffix) else ""
        base = known.get(stem) or (Column(stem, *CONTEXT[stem]) if stem in CONTEXT else None)
        if base is not None:
            return Column(name, f"{base.label} {suffix.strip('_')}", f"{what} {base.label}")
    return None


def declared_columns(spec: TableSpec) -> dict[str, Column | None]:
    """Every entry of a table's declaration and what it resolves to (None: defined nowhere)."""
    return _declared(spec, load_declarations())


@lru_cache(maxsize=None)
def _declared(spec: TableSpec, _n_metrics: int) -> dict[str, Column | None]:
    entries = [*spec.ids, *spec.columns]
    known: dict[str, Column] = {}
    for e in entries:
        meaning = _meaning(e, spec.capability)
        if meaning is not None:
            known[meaning.name] = meaning
    out: dict[str, Column | None] = {}
    for e in entries:
        c = _meaning(e, spec.capability) or _partner(e, known)
        if c is not None:
            ends = (f"{c.name}_lo", f"{c.name}_hi")
            c = replace(c, ci=ends) if set(ends) <= {*entries} else c
        out[e] = c
    return out


@lru_cache(maxsize=None)
def _by_name(spec: TableSpec, n_metrics: int) -> dict[str, Column]:
    return {c.name: c for c in _declared(spec, n_metrics).values() if c is not None}


def column(table: str, name: str) -> Column | None:
    """What column ``name`` of ``table`` means, by the table's declaration; None where the table does
    not declare it (a ``dynamic`` pattern declares the names it matches)."""
    spec = get_table(table)
    if spec is None:
        return None
    declared = _by_name(spec, load_declarations())
    if name in declared:
        return declared[name]
    text = next((t for pattern, t in spec.dynamic if fnmatchcase(name, pattern)), None)
    return Column(name, name, text) if text is not None else None


def undeclared(table: str, columns: Iterable[str]) -> str:
    """Why ``columns`` do not fit ``table``'s declaration ("" when they do)."""
    if get_table(table) is None:
        return f"table {table!r} is not declared in the registry"
    missing = [str(c) for c in columns if column(table, str(c)) is None]
    return f"table {table!r} does not declare column(s) {', '.join(missing)}" if missing else ""


def metric_columns(table: str | None, columns: Iterable[str]) -> list[str]:
    """The columns that hold a metric with a direction (counts, CI ends and context left out): by the
    table's declaration; for an undeclared table, by metric name where only one capability has it."""
    out = []
    for c in columns:
        meaning = column(table, c) if table else None
        if meaning is None and (table is None or get_table(table) is None):
            found = [m for m in all_metrics().values() if m.name == c]
            meaning = _from_metric(c, found[0]) if len(found) == 1 else None
        if meaning is not None and meaning.metric and meaning.higher_is_better is not None:
            out.append(c)
    return out


def describe(name: str, table: str | None = None) -> tuple[str, str]:
    """(label, description) of a column: by its table's declaration where the table is given and
    declares it; otherwise by name alone — a metric only one capability has, a context column, or a
    partner of either by suffix."""
    meaning = column(table, name) if table else None
    if meaning is not None:
        return meaning.label, meaning.description
    found = [m for m in all_metrics().values() if m.name == name]
    if len(found) == 1:
        return found[0].display, found[0].description
    new = renamed(name)
    if new is not None and describe(new, table)[1]:
        label, text = describe(new, table)
        return label, f"{text} (called {new} since crseval 0.2; {name} is deprecated)"
    if name in CONTEXT:
        return CONTEXT[name]
    for suffix, what in PARTNERS:
        if name.endswith(suffix) and name[: -len(suffix)]:
            base_label = describe(name[: -len(suffix)])[0]
            return f"{base_label} {suffix.strip('_')}", f"{what} {base_label}"
    return name, ""


def metric_reference() -> list[dict[str, Any]]:
    """Every registered metric: qualified name, column, label, direction, scale, the tables that hold it,
    its signature and definition (``crseval metrics`` and the docs' metric reference print it)."""
    from crseval.core.registry import all_metrics, all_tables

    held: dict[str, list[str]] = {}
    for name, spec in all_tables().items():
        for c in declared_columns(spec).values():
            if c is not None and c.metric:
                held.setdefault(c.metric, []).append(name)
    return [
        {
            "metric": m.qualified,
            "column": m.name,
            "label": m.display,
            "higher is better": m.higher_is_better,
            "scale": m.scale,
            "tables": ", ".join(held.get(m.qualified, [])),
            "signature": m.signature(),
            "description": m.description + (f" (note: {m.note})" if m.note else ""),
        }
        for m in all_metrics().values()
    ]
