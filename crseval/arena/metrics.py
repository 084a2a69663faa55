"""Arena metrics and tables, declared once (names are the result-table columns)."""

from crseval.core.registry import register_metric as metric, register_table as table

C = "arena"
metric(
    "elo",
    "The arena's sequential Elo (file order, start 1000, K = 16, tie = ½): order-dependent, no CI",
    label="Elo",
    capability=C,
)
metric(
    "bt",
    "Bradley–Terry rating on the Elo scale (1000 + 400/ln 10 · strength), ties = ½",
    label="Bradley–Terry",
    capability=C,
)
metric(
    "rank", "Rank by Bradley–Terry (1 = best)", label="rank", capability=C, higher_is_better=False
)
metric(
    "rank_stability",
    "Share of bootstrap resamples in which the system keeps its rank",
    label="rank stability",
    capability=C,
)
metric(
    "votes_for_ci_width",
    "Votes a 95 % CI of the target width would need (widths shrink as 1/√votes)",
    label="votes for CI width",
    capability=C,
    higher_is_better=False,
)
metric("wins", "Votes won", label="wins", capability=C)
metric("losses", "Votes lost", label="losses", capability=C, higher_is_better=False)
metric("ties", "Votes tied", label="ties", capability=C, higher_is_better=None)
metric(
    "satisfaction",
    "Share of the system's arena dialogues labelled satisfied (not frustrated)",
    label="satisfied share",
    capability=C,
)
metric(
    "p_win", "P(system beats opponent) under the Bradley–Terry model", label="P(win)", capability=C
)
metric(
    "p_better",
    "Share of bootstrap resamples in which the system rates above the opponent",
    label="P(better)",
    capability=C,
)
metric(
    "elo_pearson",
    "Pearson correlation of two vote sets' sequential Elo ratings",
    label="Elo r",
    capability=C,
)
metric(
    "pair_order_agreement",
    "Share of system pairs two vote sets order the same way",
    label="pair agreement",
    capability=C,
)
metric(
    "direct_agreement",
    "Share of directly voted pairs whose majority winner is the same in both vote sets",
    label="direct agreement",
    capability=C,
)

table(
    "arena_ratings",
    ["vote_set", "system"],
    "per vote set and system: Elo, Bradley–Terry with CI, rank interval",
    capability=C,
    headline=["system", "elo", "bt", "bt_low", "bt_high", "rank", "wins", "losses", "ties"],
)
table(
    "arena_win_probability",
    ["vote_set", "system", "opponent"],
    "P(system beats opponent)",
    capability=C,
)
table("arena_agreement", ["vote_set_a", "vote_set_b"], "agreement of two vote sets", capability=C)
table(
    "arena_satisfaction_agreement",
    ["vote_set"],
    "pairwise ranking vs satisfaction rates",
    capability=C,
)
