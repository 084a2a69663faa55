"""Arena metrics and tables, declared once (names are the result-table columns)."""

from crseval.core.capability import declare_capability
from crseval.core.registry import (
    register_metric as metric,
    register_table as table,
    with_ci,
    register_columns,
)

C = "arena"

declare_capability(
    C,
    package="crseval.arena",
    help="Rank systems from pairwise votes: the arena's Elo, Bradley–Terry with bootstrap CIs, rank "
    "stability, agreement between vote sets. `crseval arena VOTES.csv [MORE.csv …]`.",
    jobs={"arena": ("crseval.arena.job:JOB", "rank")},
    default="rank",
)
metric(
    "elo",
    "The arena's sequential Elo (file order, start 1000, K = 16, tie = ½): order-dependent, no CI",
    label="Elo",
    capability=C,
    scale="Elo scale (start 1000)",
)
metric(
    "bt",
    "Bradley–Terry rating on the Elo scale (1000 + 400/ln 10 · strength), ties = ½",
    label="Bradley–Terry",
    capability=C,
    scale="Elo scale (1000 + 400/ln 10 · strength)",
)
metric(
    "rank",
    "Rank by Bradley–Terry (1 = best)",
    label="rank",
    capability=C,
    higher_is_better=False,
    scale="rank (1 = best)",
)
metric(
    "rank_stability",
    "Share of bootstrap resamples in which the system keeps its rank",
    label="rank stability",
    capability=C,
    scale="share 0–1",
)
metric(
    "votes_for_ci_width",
    "Votes a 95 % CI of the target width would need (widths shrink as 1/√votes)",
    label="votes for CI width",
    capability=C,
    higher_is_better=False,
    scale="votes",
)
metric("wins", "Votes won", label="wins", capability=C, scale="votes")
metric("losses", "Votes lost", label="losses", capability=C, higher_is_better=False, scale="votes")
metric("ties", "Votes tied", label="ties", capability=C, higher_is_better=None, scale="votes")
metric(
    "satisfaction",
    "Share of the system's arena dialogues labelled satisfied (not frustrated)",
    label="satisfied share",
    capability=C,
    scale="share 0–1",
)
metric(
    "p_win",
    "P(system beats opponent) under the Bradley–Terry model",
    label="P(win)",
    capability=C,
    scale="0–1",
)
metric(
    "p_better",
    "Share of bootstrap resamples in which the system rates above the opponent",
    label="P(better)",
    capability=C,
    scale="0–1",
)
metric(
    "elo_pearson",
    "Pearson correlation of two vote sets' sequential Elo ratings",
    label="Elo r",
    capability=C,
    scale="−1…1",
)
metric(
    "pair_order_agreement",
    "Share of system pairs two vote sets order the same way",
    label="pair agreement",
    capability=C,
    scale="share 0–1",
)
metric(
    "direct_agreement",
    "Share of directly voted pairs whose majority winner is the same in both vote sets",
    label="direct agreement",
    capability=C,
    scale="share 0–1",
)

metric(
    "pearson",
    "Pearson correlation of two vote sets' Bradley–Terry ratings over the systems both rate",
    label="Pearson r (ratings)",
    capability=C,
    scale="−1…1",
)
metric(
    "spearman",
    "Spearman correlation of two vote sets' Bradley–Terry ratings over the systems both rate",
    label="Spearman ρ (ratings)",
    capability=C,
    scale="−1…1",
)
metric(
    "satisfaction_pearson",
    "Pearson correlation of the systems' Bradley–Terry ratings with their satisfied shares",
    label="Pearson r (rating, satisfaction)",
    capability=C,
    scale="−1…1",
)
metric(
    "satisfaction_spearman",
    "Spearman correlation of the systems' Bradley–Terry ratings with their satisfied shares",
    label="Spearman ρ (rating, satisfaction)",
    capability=C,
    scale="−1…1",
)

table(
    "arena_ratings",
    ["vote_set", "system"],
    "per vote set and system: Elo, Bradley–Terry with CI, rank interval",
    capability=C,
    headline=[
        "system",
        "elo",
        "bt",
        "bt_lo",
        "bt_hi",
        "rank",
        "wins",
        "losses",
        "ties",
        "satisfaction",
        "satisfaction_lo",
        "satisfaction_hi",
    ],
    columns=[
        "elo",
        *with_ci("bt", "rank"),
        "rank_stability",
        "votes_for_ci_width",
        "wins",
        "losses",
        "ties",
        *with_ci("satisfaction"),
        "dialogues",
        "davidson_nu",
    ],
)
table(
    "arena_win_probability",
    ["vote_set", "system", "opponent"],
    "P(system beats opponent)",
    capability=C,
    columns=["p_win", "p_better"],
)
table(
    "arena_agreement",
    ["vote_set_a", "vote_set_b"],
    "agreement of two vote sets",
    capability=C,
    columns=[
        "systems",
        *with_ci("pearson", "spearman"),
        "elo_pearson",
        "pair_order_agreement",
        "direct_pairs",
        "direct_agreement",
    ],
)
table(
    "arena_satisfaction_agreement",
    ["vote_set"],
    "pairwise ranking vs satisfaction rates",
    capability=C,
    columns=[
        "systems",
        "pearson=arena.satisfaction_pearson",
        "spearman=arena.satisfaction_spearman",
    ],
)
table(
    "arena_llm_votes",
    ["crs1", "crs2", "line"],
    "the LLM judge's vote on each pair of arena dialogues, both orders",
    capability=C,
    columns=[
        "vote",
        "user",
        "session",
        "feedback",
        "p_crs1_first",
        "p_crs1_second",
        "position_consistent",
    ],
)

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    C,
    {
        "vote_set": (
            "vote set",
            "the votes the row is computed from (a file, or all files combined)",
        ),
        "vote_set_a": ("vote set A", "first vote set"),
        "vote_set_b": ("vote set B", "second vote set"),
        "opponent": ("opponent", "the other system of the pair"),
        "rank_lo": ("rank low", "best rank in the 95 % bootstrap interval"),
        "rank_hi": ("rank high", "worst rank in the 95 % bootstrap interval"),
        "direct_pairs": ("direct pairs", "system pairs with a decisive majority in both vote sets"),
        "crs1": ("system 1", "first system of the voted pair"),
        "crs2": ("system 2", "second system of the voted pair"),
        "vote": ("vote", "the winning system, or tie"),
        "feedback": ("feedback", "the voter's free-text feedback, where given"),
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
        "line": ("line", "line of the vote in its file (the vote order)"),
    },
)
