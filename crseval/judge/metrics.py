"""Judge meta-evaluation metrics and tables, declared once (names are the result-table columns)."""
from crseval.core.registry import register_metric as metric, register_table as table

C = "judge"
metric("pearson", "Pearson correlation of judge scores with the mean human label", label="Pearson r", capability=C)
metric("spearman", "Spearman correlation of judge scores with the mean human label", label="Spearman ρ",
       capability=C)
metric("score", "A judge's mean score of an item (its samples averaged)", label="judge score", capability=C)
metric("llm_overall", "The LLM judge's overall score of a dialogue (1–5)", label="judge overall", capability=C)
metric("human_satisfaction", "Mean human satisfaction rating of a dialogue", label="human satisfaction",
       capability=C)

table("meta_eval", ["aspect", "judge"], "per aspect and judge: correlation with the human labels, with CIs",
      capability=C)
table("judge_item_scores", ["item", "aspect", "judge"], "per item, aspect and judge: score next to the human label",
      capability=C)
table("judge_scores", ["dialogue"], "the demo's judge score per sample dialogue", capability=C)
