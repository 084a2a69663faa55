"""Preference-shift metrics and tables, declared once (names are the result-table columns). TAS's
parameters come from :class:`~crseval.adaptation.tas.TASParams`, their one declaration.

Two TAS definitions score sessions: crseval's (``tas`` and its components, unqualified names) and the
preference-shift study's (``--definition thesis``: ``thesis.*``, its own column names). Each lists its
components once in :data:`COLUMNS`; the analysis, figures and report read them from there.
"""

from dataclasses import dataclass

from crseval.adaptation.tas import TASParams
from crseval.core.capability import declare_capability
from crseval.core.registry import (
    METRICS,
    register_metric as metric,
    register_table as table,
    register_columns,
)


@dataclass(frozen=True)
class Columns:
    """What a TAS definition writes per session: the headline score, its components, extra metrics."""

    headline: str
    automatic: tuple[str, ...]
    extra: tuple[str, ...] = ("detection_precision", "detection_recall")


THESIS = "thesis."
FOLLOW = "follow."
# verified preference following (adaptation/following.py): the same columns whatever the TAS definition
FOLLOWING = tuple(
    FOLLOW + c
    for c in (
        "follow_rate",
        "wish_rate",
        "satisfaction",
        "turns_to_follow",
        "stale_rate",
        "hallucination_rate",
        "success",
        "crs_constraint_satisfaction",
    )
)
COLUMNS = {
    "crseval": Columns(
        "tas",
        ("tas", "recovery_rate", "rd_norm", "ti_norm", "cross_coherence", "context_retention"),
        ("avg_recovery_delay", "topic_interference", "detection_precision", "detection_recall"),
    ),
    "thesis": Columns(
        THESIS + "context_adaptation_score",
        tuple(
            THESIS + c
            for c in (
                "context_adaptation_score",
                "topic_recovery_rate",
                "avg_recovery_delay",
                "topic_interference",
                "cross_coherence",
                "context_retention",
            )
        ),
    ),
}

C = "shift"

declare_capability(
    C,
    package="crseval.adaptation",
    help="Preference-shift evaluation: user simulator × CRS models × topic adaptation score (TAS) × "
    "LLM judge, with ANOVA + Tukey HSD.",
    jobs={
        "shift.run": (
            "crseval.adaptation.job:RUN",
            None,
        ),  # `shift run CONFIG.toml`: its own options
        "shift.score": ("crseval.adaptation.job:SCORE", "score"),
        "shift.validate": ("crseval.adaptation.validate:VALIDATE", "validate"),
    },
    cli="crseval.cli.shift",
)
DIFFERS = (
    "crseval's definition (the default; turn-level shifts, recovery searched up to the next shift within a "
    "window, no shift recovered = worst delay); the study's own is --definition thesis (thesis.* metrics)"
)
metric(
    "tas",
    "Topic Adaptation Score: weighted mean of recovery rate, normalised recovery delay, normalised topic "
    "interference, cross-coherence and context retention (0–1)",
    label="TAS",
    capability=C,
    params=TASParams().signature_params(),
    scale="0–1",
)
metric(
    "recovery_rate",
    "Share of detected shifts the CRS recovers from within the window",
    label="recovery rate",
    capability=C,
    note=DIFFERS,
    scale="share 0–1",
)
metric(
    "rd_norm",
    "Normalised recovery delay: 1 − clamp((delay − 1) / delay_scale); 0 when no shift is recovered",
    label="recovery delay (normalised)",
    capability=C,
    note=DIFFERS,
    scale="0–1",
)
metric(
    "ti_norm",
    "Normalised topic interference: 1 − share of examined system turns that still mention old topics",
    label="topic interference (normalised)",
    capability=C,
    note=DIFFERS,
    scale="0–1",
)
metric(
    "cross_coherence",
    "Mean similarity of each user turn and the system reply to it",
    label="cross-coherence",
    capability=C,
    scale="similarity 0–1",
)
metric(
    "context_retention",
    "Mean similarity of consecutive system replies",
    label="context retention",
    capability=C,
    scale="similarity 0–1",
)
metric(
    "avg_recovery_delay",
    "Mean system turns until a detected shift is recovered (1 = at once)",
    label="recovery delay (turns)",
    capability=C,
    higher_is_better=False,
    note=DIFFERS,
    scale="system turns",
)
metric(
    "topic_interference",
    "Share of examined system turns after a shift that still mention old topics",
    label="topic interference",
    capability=C,
    higher_is_better=False,
    note=DIFFERS,
    scale="share 0–1",
)
metric(
    "detection_precision",
    "Precision of the shift detector against the simulator's logged shifts",
    label="shift detection precision",
    capability=C,
    scale="0–1",
)
metric(
    "detection_recall",
    "Recall of the shift detector against the simulator's logged shifts",
    label="shift detection recall",
    capability=C,
    scale="0–1",
)
metric(
    "shifts_detected",
    "Shifts the detector found in a session",
    capability=C,
    higher_is_better=None,
    role="count",
    scale="count",
)
metric(
    "shifts_recovered",
    "Detected shifts the CRS recovered from",
    capability=C,
    higher_is_better=None,
    role="count",
    scale="count",
)
metric(
    "true_shifts",
    "Shifts the simulator logged in a session",
    capability=C,
    higher_is_better=None,
    role="count",
    scale="count",
)
SPEC = "as the study's code computes it (../shared/specs/thesis_tas.md; crseval shift score --definition thesis)"
UNPUBLISHABLE = (
    "the study's published value came from an LLM topic extractor whose outputs were not saved: nobody "
    "can reproduce it; with the study's LDA model crseval reproduces its code's values (README: within the "
    "gensim-randomness tolerance)"
)
metric(
    THESIS + "context_adaptation_score",
    "The study's TAS ('context adaptation score'): weighted mean of recovery "
    "rate (.01), 1 − clamp((delay − 1)/5) (.02), 1 − clamp(interference) (.02), cross-coherence (.30) and context "
    f"retention (.15), {SPEC}",
    label="TAS (thesis)",
    capability=C,
    note=UNPUBLISHABLE,
    scale="0–1",
)
metric(
    THESIS + "topic_recovery_rate",
    "Share of detected shifts (segment changes) after which some later system turn "
    f"aligns with the new segment's LDA topics (≥ .65), {SPEC}",
    label="recovery rate (thesis)",
    capability=C,
    note=UNPUBLISHABLE,
    scale="share 0–1",
)
metric(
    THESIS + "avg_recovery_delay",
    f"Mean system turns until a recovered shift is recovered (1 = at once); 0 when none is, {SPEC}",
    label="recovery delay (thesis)",
    capability=C,
    higher_is_better=False,
    note=UNPUBLISHABLE,
    scale="system turns",
)
metric(
    THESIS + "topic_interference",
    "Mean over shifts of system turns whose topics still match the old segment "
    f"(≥ .65) per turn examined, {SPEC}",
    label="topic interference (thesis)",
    capability=C,
    higher_is_better=False,
    note=UNPUBLISHABLE,
    scale="system turns",
)
metric(
    THESIS + "cross_coherence",
    f"Mean TF-IDF cosine of each user turn and the reply to it, {SPEC}",
    label="cross-coherence (thesis)",
    capability=C,
    note="reproduces the study's published values exactly (1e-16)",
    scale="cosine 0–1",
)
metric(
    THESIS + "context_retention",
    f"Mean TF-IDF cosine of consecutive system replies, {SPEC}",
    label="context retention (thesis)",
    capability=C,
    note="reproduces the study's published values exactly (1e-16)",
    scale="cosine 0–1",
)
VERIFIED = (
    "checked against the catalogue (adaptation/following.py); needs the simulator's logged truth"
)
metric(
    FOLLOW + "follow_rate",
    "Share of logged shifts whose next recommendation (before the next shift) names a "
    f"catalogue title satisfying every new constraint, {VERIFIED}",
    label="follow rate (verified)",
    capability=C,
    scale="share 0–1",
)
metric(
    FOLLOW + "wish_rate",
    "Share of the user's wishes — the opening one and every shift — whose next recommendation (before "
    "the next wish) names a catalogue title satisfying what the wish asked for; real users mostly state "
    f"one wish and never shift, which the follow rate leaves out, {VERIFIED}",
    label="wishes followed (verified)",
    capability=C,
    scale="share 0–1",
)
metric(
    FOLLOW + "satisfaction",
    "Share of grounded recommendations satisfying every constraint the user holds at that "
    f"turn, {VERIFIED}",
    label="constraint satisfaction (verified)",
    capability=C,
    scale="share 0–1",
)
metric(
    FOLLOW + "turns_to_follow",
    "Mean system turns until a reply names a title satisfying a shift's new constraints "
    f"(1 = the reply to the shift), over shifts followed before the next one, {VERIFIED}",
    label="turns to follow (verified)",
    capability=C,
    higher_is_better=False,
    scale="system turns",
)
metric(
    FOLLOW + "stale_rate",
    "Share of recommendations after a shift that dropped a constraint which still satisfy a "
    f"dropped constraint but not the new ones, {VERIFIED}",
    label="stale rate (verified)",
    capability=C,
    higher_is_better=False,
    scale="share 0–1",
)
metric(
    FOLLOW + "hallucination_rate",
    "Share of titles the CRS names that are in no catalogue (title grounding)",
    label="hallucinated titles",
    capability=C,
    higher_is_better=False,
    scale="share 0–1",
)
metric(
    FOLLOW + "success",
    f"1 when every logged shift of the session was followed before the next one, {VERIFIED}",
    label="session success (verified)",
    capability=C,
    scale="0 or 1",
)
metric(
    FOLLOW + "crs_constraint_satisfaction",
    "Imported logs: share of grounded recommendations satisfying the "
    "constraints the CRS itself logged (a consistency check, not following: the user's wishes are not in such logs)",
    label="satisfies its own parsed constraints",
    capability=C,
    scale="share 0–1",
)
metric(
    FOLLOW + "recommendations",
    "Catalogue titles the CRS named in a session",
    capability=C,
    higher_is_better=None,
    role="count",
    scale="count",
)
for aspect, text in (
    ("proactiveness", "guides the conversation with useful questions and suggestions"),
    ("coherence", "replies follow from the conversation without contradictions"),
    ("personalization", "recommendations fit the user's stated and changing preferences"),
):
    metric(
        aspect,
        f"LLM judge, 1–5: how well the CRS {text}",
        label=f"judge {aspect}",
        capability=C,
        scale="1–5",
    )

# every metric above is a per-session column (both TAS definitions, following, the judge aspects)
SESSION_METRICS = [m.name for m in METRICS.values() if m.capability == C]
CALIBRATED = {"* (calibrated)": "the calibrated judge's score of the aspect (crseval judge fit)"}
ANOVA = ["F", "df_between", "df_within", "p", "eta_squared", "n", "note"]
# the CRS's column: "model" in the shift tables of runs of crseval 0.2, "system" in every table now
WAS_MODEL = {"model": "system"}
TUKEY = ["group1", "group2", "meandiff", "p_tukey", "lower", "upper", "reject"]

table(
    "shift_sessions",
    ["system", "session"],
    "one row per simulated or imported session",
    capability=C,
    renamed=WAS_MODEL,
    columns=[
        "user",
        "turns",
        "true_genre",
        "failed",
        "error",
        "judge_failures",
        *SESSION_METRICS,
    ],
    dynamic=CALIBRATED,
)
table(
    "shift_turns",
    ["system", "session", "turn"],
    "one row per turn of every session: the user's words and the CRS's reply, events, constraints",
    capability=C,
    columns=["user", "reply", "event", "constraints", "session_tas"],
    context={
        "user": ("user", "the simulated user's words at this turn"),
        "reply": ("reply", "the CRS's words at this turn"),
    },
    renamed={"system": "reply", "model": "system"},
)
table(
    "model_metrics",
    ["system", "metric"],
    "per model and metric: mean with a 95 % bootstrap CI",
    capability=C,
    renamed=WAS_MODEL,
    columns=["mean", "ci_lo", "ci_hi", "n"],
)
table(
    "model_metrics_wide",
    ["system"],
    "per model: the mean of every metric, one column each",
    capability=C,
    renamed=WAS_MODEL,
    columns=SESSION_METRICS,
    dynamic=CALIBRATED,
)
table(
    "anova",
    ["metric"],
    "one-way ANOVA of each metric across models",
    capability=C,
    columns=ANOVA,
)
table(
    "tukey",
    ["metric", "group1", "group2"],
    "Tukey HSD of each metric between every pair of models",
    capability=C,
    columns=TUKEY,
)
table(
    "metric_correlations",
    ["automatic", "judge"],
    "per-session correlation of each automatic metric with each judge aspect",
    capability=C,
    context={"judge": ("judge aspect", "the judge's aspect the metric is correlated with")},
    columns=["n", "pearson_r", "pearson_p", "spearman_rho", "spearman_p"],
)
table(
    "shift_detection",
    ["system"],
    "the shift detector against the simulator's logged shifts, per model",
    capability=C,
    renamed=WAS_MODEL,
    columns=["precision", "recall", "detected", "true", "true_positive"],
)
table(
    "shift_leakage",
    ["system"],
    "simulated users naming catalogue titles before the CRS does",
    capability=C,
    renamed=WAS_MODEL,
    columns=["sessions", "user_turns", "leaked_turns", "leak_turn_share", "sessions_with_leak"],
)
table(
    "shift_following",
    ["system", "kind"],
    "whether the simulated user's words state each logged shift, and revert it",
    capability=C,
    renamed=WAS_MODEL,
    columns=["shifts", "stated_share", "reverted_share"],
)
table(
    "shift_human_likeness",
    ["source"],
    "simulated user turns against human seeker turns: length, vocabulary, acts, embeddings",
    capability=C,
    columns=[
        "turns",
        "words_per_turn",
        "human_words_per_turn",
        "unseen_vocabulary",
        "act_tv_distance",
        *(f"act_{a}" for a in ("greeting", "question", "request", "feedback", "other")),
        "frechet",
    ],
)
metric(
    "discriminator_auc",
    "Human-likeness: how well a classifier of the panel (crseval.adaptation.discriminators: logistic "
    "regression on sentence embeddings, word/character n-grams or the dialogue's shape, 5 folds grouped "
    "by user) tells the row's users from the real users — .5 = indistinguishable, 1 = always told apart; "
    "CI from resampling users; in shift_validity, the panel's best discriminator",
    label="discriminator AUC",
    capability=C,
    higher_is_better=False,
    scale="0.5–1",
    tables_with_ci=["shift_user_discriminator", "shift_validity"],
)
table(
    "shift_user_alignment",
    ["system", "user_feature"],
    "simulated users against real users, cue by cue: shares of user turns, words per turn, turns per "
    "dialogue, with the human floor",
    capability=C,
    renamed=WAS_MODEL,
    columns=["simulated", "real", "gap", "human_floor", "within_floor"],
)
table(
    "shift_user_discriminator",
    ["source", "member"],
    "a panel of classifiers telling simulated (or other human) users from the real users: sentence "
    "embeddings and word/character n-grams of single turns and of whole dialogues, and the dialogue's "
    "shape (turns, words per turn, questions); titles, names and numbers masked; units: the turns or "
    "dialogues each side brought",
    capability=C,
    columns=["level", "compared", "units", "real_units"],
)
table(
    "shift_user_repeats",
    ["source"],
    "the share of a source's user turns that repeat a turn of another of its dialogues word for word "
    "(masked, lower-cased, without punctuation)",
    capability=C,
    columns=["dialogues", "turns", "repeated_share"],
)
table(
    "shift_user_counterfactual",
    ["user_feature"],
    "real users with the CRS they voted for minus the one they voted against, beside simulated users "
    "with a CRS that follows them minus one that ignores them",
    capability=C,
    columns=[
        "real_diff",
        "real_lo",
        "real_hi",
        "real_pairs",
        "sim_diff",
        "sim_lo",
        "sim_hi",
        "sim_pairs",
        "sign_agrees",
        "real_clear",
    ],
)
table(
    "shift_user_outcomes",
    ["source"],
    "how dialogues end: simulated users per CRS, real users by their own label",
    capability=C,
    columns=["dialogues", "satisfied", "frustrated", "still_open", "turns"],
)
table(
    "published_vs_reproduced",
    ["system", "metric"],
    "the study's published values beside crseval's on its logs",
    capability=C,
    renamed=WAS_MODEL,
    columns=["published", "reproduced", "abs_diff"],
)
table(
    "imported_judge_scores",
    ["system", "session", "aspect"],
    "the study's own judge scores, as its files hold them",
    capability=C,
    renamed=WAS_MODEL,
    columns=["file", "line", "judge.score", "in_scale"],
)
table(
    "imported_judge_anova",
    ["aspect"],
    "one-way ANOVA of the study's judge scores across models",
    capability=C,
    columns=ANOVA,
)
table(
    "imported_judge_tukey",
    ["aspect", "group1", "group2"],
    "Tukey HSD of the study's judge scores between models",
    capability=C,
    columns=TUKEY,
)
table(
    "shift_validity",
    ["system"],
    "simulator validity per model: leakage, shifts stated/reverted, words per turn, "
    "dialogue-act distance and Fréchet distance to human seeker turns",
    capability=C,
    renamed=WAS_MODEL,
    columns=[
        "words_per_turn",
        "act_tv_distance",
        "frechet",
        "leak_turn_share",
        "sessions_with_leak",
        "shifts_stated",
        "shifts_reverted",
        "discriminator",
    ],
)
table(
    "following_validity",
    ["metric", "verified"],
    "per-session correlation of each adaptation metric and judge "
    "aspect with the verified following measures (Pearson with a Fisher-z 95 % CI, Spearman)",
    capability=C,
    columns=["n", "pearson_r", "pearson_r_lo", "pearson_r_hi", "spearman_rho"],
)
table(
    "following_pass_k",
    ["system", "k_sessions"],
    "pass^k per model from repeated sessions of each simulated user",
    capability=C,
    renamed=WAS_MODEL,
    columns=["pass_k", "ci_lo", "ci_hi", "users"],
)
table(
    "shift_detector_sweep",
    ["sim_shift", "jaccard_shift"],
    "the shift detector's precision, recall and F1 per "
    "threshold pair against the simulator's logged shifts",
    capability=C,
    columns=["precision", "recall", "f1", "detected", "true"],
)

# known groups (crseval/adaptation/known_groups.py): the AUC, every check and its summary per metric
metric(
    "auc",
    "Known groups: the probability that a session of the CRS that follows the user (template) scores "
    "better than one of the CRS that ignores the user (stubborn), in the metric's own direction; ties "
    "count half; .5 = no separation",
    label="known-groups AUC",
    capability=C,
    scale="0–1",
)
table(
    "known_groups",
    ["metric", "turns", "worse"],
    "every known-groups check: a metric, a dialogue length, the follower against one other CRS",
    capability=C,
    headline=["metric", "turns", "worse", "auc", "auc_lo", "auc_hi", "verdict"],
    columns=["label", "turns", "better", "auc", "auc_lo", "auc_hi", "n", "verdict"],
)
table(
    "known_groups_summary",
    ["metric"],
    "per metric: its known-groups checks held, reversed, the smallest AUC and where",
    capability=C,
    headline=["metric", "checks", "held", "reversed", "auc_min", "worst", "verdict"],
    columns=["label", "checks", "held", "reversed", "auc_min", "worst", "verdict"],
)

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    C,
    {
        "precision": ("precision", "detected shifts that match a simulated (true) shift"),
        "recall": ("recall", "simulated shifts that were detected"),
        "better": ("expected better", "the system a metric should rank higher (known groups)"),
        "worse": ("expected worse", "the system a metric should rank lower (known groups)"),
        "checks": ("checks", "known-groups checks of the metric (other CRSs × lengths)"),
        "held": ("held", "checks where the expected ordering held (the AUC's CI above .5)"),
        "reversed": ("reversed", "checks where the opposite ordering held (the AUC's CI below .5)"),
        "auc_min": ("smallest AUC", "the metric's smallest known-groups AUC"),
        "worst": ("worst check", "the other CRS and length of the smallest AUC"),
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
        "detected": ("detected", "shifts detected"),
        "true_positive": ("true positives", "detected shifts that match a true shift"),
        "automatic": ("automatic metric", "automatic (TAS family) metric"),
        "source": (
            "source",
            "simulated model, or the human split half (the floor a perfect simulator reaches)",
        ),
        "user_turns": ("user turns", "simulated user turns"),
        "sessions": ("sessions", "sessions the value is computed on"),
        "leaked_turns": (
            "leaked turns",
            "user turns naming a catalogue title the CRS had not named yet",
        ),
        "leak_turn_share": (
            "leak share",
            "share of user turns that name a title before the CRS does",
        ),
        "sessions_with_leak": (
            "sessions with leak",
            "share of sessions with at least one leaked turn",
        ),
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
            "or complaint, a greeting, thanks, a closing; shares naming a genre, an era, people, the one film "
            "shown, several films, or asking for a recommendation) or turns (user turns per dialogue)",
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
        "member": (
            "discriminator",
            "the panel's classifier: what it reads (sentence embeddings, word/character n-grams, the "
            "dialogue's shape) and of what (a turn, a dialogue)",
        ),
        "discriminator": (
            "discriminator",
            "the panel's member that tells the row's users from real users best (the highest AUC)",
        ),
        "units": ("units", "the row's turns or dialogues the classifier saw"),
        "real_units": ("real units", "the real users' turns or dialogues it saw"),
        "repeated_share": (
            "repeated",
            "share of the source's user turns that repeat a turn of another of its dialogues word for word",
        ),
        "real_diff": (
            "real Δ",
            "mean over battles: with the CRS the user voted for − the one voted against",
        ),
        "real_lo": ("real Δ low", "lower end of its 95 % bootstrap CI"),
        "real_hi": ("real Δ high", "upper end of its 95 % bootstrap CI"),
        "real_pairs": ("battles", "decided battles both of whose dialogues are in the reference"),
        "sim_diff": (
            "simulated Δ",
            "mean over simulated users: with the follower − with the ignorer",
        ),
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
        "jaccard_shift": (
            "Jaccard threshold",
            "a shift when their topic overlap is lower than this",
        ),
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
        "file": ("file", "the file the row was read from"),
        "in_scale": ("in scale", "the score lies on the scale the study declared"),
        "published": ("published", "the value the study published"),
        "reproduced": ("reproduced", "crseval's value on the study's logs"),
        "abs_diff": ("|difference|", "absolute difference of published and reproduced"),
        **{
            f"act_{a}": (f"act: {a}", f"share of user turns whose rule-based dialogue act is {a}")
            for a in ("greeting", "question", "request", "feedback", "other")
        },
        "line": ("line", "line of the score in the study's file"),
        "true": ("true", "shifts the simulator logged (ground truth)"),
    },
)
