"""Preference-shift metrics and tables, declared once (names are the result-table columns). TAS's
parameters come from :class:`~crseval.adaptation.tas.TASParams`, their one declaration."""
from crseval.adaptation.tas import TASParams
from crseval.core.registry import register_metric as metric, register_table as table

C = "preference-shift"
DIFFERS = ("differs from the original thesis code where the topics come from the TF-IDF/keyword heuristic instead "
           "of an LLM topic extractor (use --topics llm for the original's design)")
metric("tas", "Topic Adaptation Score: weighted mean of recovery rate, normalised recovery delay, normalised topic "
       "interference, cross-coherence and context retention (0–1)", label="TAS", capability=C,
       params=TASParams().signature_params())
metric("recovery_rate", "Share of detected shifts the CRS recovers from within the window", label="recovery rate",
       capability=C, note=DIFFERS)
metric("rd_norm", "Normalised recovery delay: 1 − clamp((delay − 1) / delay_scale); 0 when no shift is recovered",
       label="recovery delay (normalised)", capability=C, note=DIFFERS)
metric("ti_norm", "Normalised topic interference: 1 − share of examined system turns that still mention old topics",
       label="topic interference (normalised)", capability=C, note=DIFFERS)
metric("cross_coherence", "Mean similarity of each user turn and the system reply to it", label="cross-coherence",
       capability=C)
metric("context_retention", "Mean similarity of consecutive system replies", label="context retention", capability=C)
metric("avg_recovery_delay", "Mean system turns until a detected shift is recovered (1 = at once)",
       label="recovery delay (turns)", capability=C, higher_is_better=False, note=DIFFERS)
metric("topic_interference", "Share of examined system turns after a shift that still mention old topics",
       label="topic interference", capability=C, higher_is_better=False, note=DIFFERS)
metric("detection_precision", "Precision of the shift detector against the simulator's logged shifts",
       label="shift detection precision", capability=C)
metric("detection_recall", "Recall of the shift detector against the simulator's logged shifts",
       label="shift detection recall", capability=C)
metric("shifts_detected", "Shifts the detector found in a session", capability=C, higher_is_better=None, role="count")
metric("shifts_recovered", "Detected shifts the CRS recovered from", capability=C, higher_is_better=None,
       role="count")
metric("true_shifts", "Shifts the simulator logged in a session", capability=C, higher_is_better=None, role="count")
for aspect, text in (("proactiveness", "guides the conversation with useful questions and suggestions"),
                     ("coherence", "replies follow from the conversation without contradictions"),
                     ("personalization", "recommendations fit the user's stated and changing preferences")):
    metric(aspect, f"LLM judge, 1–5: how well the CRS {text}", label=f"judge {aspect}", capability=C)

table("shift_sessions", ["model", "session"], "one row per simulated or imported session", capability=C)
table("model_metrics", ["model", "metric"], "per model and metric: mean with a 95 % bootstrap CI", capability=C)
table("shift_validity", ["model"], "simulator validity per model: leakage, shifts stated/reverted, words per turn, "
      "dialogue-act distance and Fréchet distance to human seeker turns", capability=C)
table("shift_detector_sweep", ["sim_shift", "jaccard_shift"], "the shift detector's precision, recall and F1 per "
      "threshold pair against the simulator's logged shifts", capability=C)
