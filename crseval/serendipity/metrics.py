"""Serendipity evaluators and meta-evaluation metrics, declared once. The proxies (role ``baseline``) are
both metrics and evaluators: their names are the columns of ``serendipity_answers``."""
from crseval.core.registry import register_metric as metric, register_table as table

C = "serendipity"
metric("random", "Seeded uniform random scores", capability=C, role="baseline", params={"seed": 0})
metric("sog", "SOG: weighted sum of relevance, diversity, dissimilarity to history and unpopularity", label="SOG",
       capability=C, role="baseline", params={"weights": "0.25,0.25,0.25,0.25"})
metric("snpr", "SNPR: λ·relevance + (1−λ)·unexpectedness", label="SNPR", capability=C, role="baseline",
       params={"lam": 0.5})
metric("purs", "PURS: relevance + f(unexpectedness)·factor, unexpectedness = distance to the nearest interest "
       "cluster, f(x) = x·exp(−x)", label="PURS", capability=C, role="baseline", params={"factor": 1.0})
metric("desr", "DESR: acc·dif / (acc + dif), acc = relevance, dif = dissimilarity to history", label="DESR",
       capability=C, role="baseline")
metric("llm", "The LLM plays the user and rates serendipity 1–5 (zero-shot)", label="LLM (zero-shot)", capability=C,
       role="evaluator")
metric("llm-fewshot", "The LLM plays the user, with rated examples from other users", label="LLM (few-shot)",
       capability=C, role="evaluator")
metric("calibrated", "Ridge over the other evaluators' predictions, fitted to the ground truth in user-grouped "
       "nested cross-validation (out-of-fold: no answer is predicted by a model that saw its user)",
       label="calibrated (grouped CV)", capability=C, role="evaluator")
metric("pearson_%", "Pearson correlation (%) of an evaluator's 1–5 predictions with the ground truth",
       label="Pearson (%)", capability=C)
metric("pearson_%_same", "Pearson (%) on the answers every evaluator scored: what the best/second ranking compares",
       label="Pearson (%), same answers", capability=C)
metric("mae", "Mean absolute error of the 1–5 predictions", label="MAE", capability=C, higher_is_better=False)
metric("rmse", "Root mean squared error of the 1–5 predictions", label="RMSE", capability=C, higher_is_better=False)

table("serendipity_meta_eval", ["evaluator"], "per evaluator: Pearson, MAE and RMSE with CIs", capability=C)
table("serendipity_answers", ["user", "item"], "per answer: ground truth and every evaluator's prediction",
      capability=C)
