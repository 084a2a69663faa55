"""The simulated users of a run against real users: the tables of :mod:`crseval.adaptation.realism` built
from a run's session records and a reference of real users (any dialogue source crseval reads; a CRSArena-
Dial folder brings its battles' votes for the counterfactual pillar)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd

from crseval import validated
from crseval.adaptation import discriminators as D
from crseval.adaptation import realism as R
from crseval.adaptation.validate_config import ValidateConfig
from crseval.core.errors import CrsevalError
from crseval.core.numbers import ci_text
from crseval.core.output import Output

SMALL = 30  # simulated users below which a comparison with real users is flagged as too small
USER_TABLES = {  # table → its title in the report and the API's details
    "shift_user_alignment": "simulated vs real users: statistical alignment",
    "shift_user_discriminator": "simulated vs real users: human-likeness (a panel of discriminators)",
    "shift_user_repeats": "simulated vs real users: turns repeated word for word across dialogues",
    "shift_user_counterfactual": "simulated vs real users: counterfactual (follower − ignorer)",
    "shift_user_outcomes": "simulated vs real users: how dialogues end",
}


@dataclass
class Reference:
    """Real users: their dialogues (:class:`~crseval.data.any_dialogues.DialogueSource`) and, where the
    source has votes, each decided battle's (winner's dialogue id, loser's dialogue id)."""

    name: str
    source: Any
    battles: list[tuple[str, str]] = field(default_factory=list)

    @cached_property  # read by the --also checks, the tables and the panel: built once
    def dialogues(self) -> list[R.UserDialogue]:
        return R.real_dialogues(self.source)


def read_reference(spec: str, option: str = "--human") -> Reference:
    """``sample`` or any path :func:`crseval.data.any_dialogues.read_dialogues` reads, with its battles."""
    from crseval.data.any_dialogues import read_dialogues

    try:
        source = read_dialogues(spec)
    except CrsevalError as e:
        raise CrsevalError(
            f"not real users' dialogues ({e.message})",
            file=Path(spec),
            field=option,
            fix="pass 'sample', a CRSArena-Dial folder (../shared/data/arena/crsarena_dial), ReDial, "
            "INSPIRED or your own logs",
        ) from None
    return Reference(source.info.name, source, reference_battles(spec, source))


def read_others(specs: Sequence[str]) -> dict[str, Reference]:
    """``--also``'s sources, each by its file or folder name — by the path as given where two share a
    name, so that neither replaces the other."""
    names = [Path(s).name for s in specs]
    return {
        n if names.count(n) == 1 else s: read_reference(s, "--also") for n, s in zip(names, specs)
    }


def reference_battles(spec: str, source) -> list[tuple[str, str]]:
    """The decided battles of a CRSArena-Dial layout (its votes: :func:`crseval.data.votes.votes_beside`)
    as (winner's dialogue id, loser's), kept where both dialogues are in ``source``."""
    from crseval.data.votes import decided_battles, votes_beside

    if not source.layout.startswith("judged"):
        return []
    ids = {d.id for d in source.dialogues}
    pairs = [(f"{w}_{u}", f"{lo}_{u}") for u, w, lo in decided_battles(votes_beside(spec))]
    return [p for p in pairs if p[0] in ids and p[1] in ids]


def _counterfactual(sim, sim_f, real_f, reference: Reference, config: ValidateConfig):
    """(the counterfactual pillar's table, its note): each feature's follower − ignorer difference among
    simulated users against the voted-for − voted-against difference among real users."""
    follower, ignorer = config.follower, config.ignorer
    winners, losers = zip(*reference.battles)
    real_pairs = R.pairs(real_f, dict(enumerate(winners)), dict(enumerate(losers)))
    both = pd.concat([sim_f[follower], sim_f[ignorer]])
    by_user = {m: {d.group: d.id for d in sim[m]} for m in (follower, ignorer)}
    sim_pairs = R.pairs(both, by_user[follower], by_user[ignorer])
    cf = R.counterfactual(real_pairs, sim_pairs, config.seed, config.n_boot)
    clear = cf[cf["real_clear"]]
    return cf, (
        f"Counterfactual: {int(cf['sign_agrees'].sum())} of {len(cf)} features move the same way "
        f"for simulated users ({follower} − {ignorer}) as for real users (the CRS they voted for − "
        f"the one they voted against, {len(real_pairs)} battles); of the "
        f"{len(clear)} whose real difference is clear (CI excludes 0: "
        f"{', '.join(clear['user_feature']) or 'none'}), {int(clear['sign_agrees'].sum())}."
    )


def user_validity(
    records: Sequence[dict[str, Any]],
    kb,
    reference: Reference,
    embedder,
    config: ValidateConfig,
    others: dict[str, Reference] | None = None,
) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """The four pillars' tables (``shift_user_alignment``, ``shift_user_discriminator`` — the panel of
    :mod:`crseval.adaptation.discriminators` — with ``shift_user_repeats``, ``shift_user_counterfactual``,
    ``shift_user_outcomes``) and notes for the report; ``config`` gives the follower and the ignorer, the
    sample sizes and the seed."""
    from crseval.text.titles import TitleMatcher

    follower, ignorer, seed, n_boot = config.follower, config.ignorer, config.seed, config.n_boot
    matcher = TitleMatcher(kb.movies)
    sim: dict[str, list[R.UserDialogue]] = {}
    for d in R.simulated_dialogues(records):
        sim.setdefault(d.system, []).append(d)
    real = reference.dialogues
    notes: list[str] = []
    real_f = R.dialogue_features(real, matcher)
    sim_f = {m: R.dialogue_features(ds, matcher) for m, ds in sim.items()}
    tables = {
        "shift_user_alignment": R.alignment(sim_f, real_f, seed),
        "shift_user_discriminator": D.panel(
            sim,
            real,
            embedder,
            matcher,
            others={n: r.dialogues for n, r in (others or {}).items()},
            max_turns=config.max_turns,
            seed=seed,
            n_boot=n_boot,
        ),
        "shift_user_repeats": D.repeats(sim | {"real users": real}, matcher),
    }
    small = [m for m, ds in sim.items() if len({d.group for d in ds}) < SMALL]
    if small:
        notes.append(
            f"Fewer than {SMALL} simulated users for {', '.join(small)}: too few to compare with "
            "real users (wide CIs); run more sessions."
        )
    if follower in sim and ignorer in sim and reference.battles:
        cf, note = _counterfactual(sim, sim_f, real_f, reference, config)
        tables["shift_user_counterfactual"] = cf
        notes.append(note)
    else:
        notes.append(
            "Counterfactual: needs a run with a follower and an ignorer "
            f"({follower}, {ignorer}) and a reference with votes (a CRSArena-Dial folder)."
        )
    ends = {m: ds for m, ds in sim.items()}
    if reference.battles:
        by_id = {d.id: d for d in real}
        ends["real: voted for"] = [by_id[a] for a, _ in reference.battles]
        ends["real: voted against"] = [by_id[b] for _, b in reference.battles]
    ends["real: all"] = real
    tables["shift_user_outcomes"] = R.outcomes(ends)
    return tables, notes


def also_notes(reference: Reference, others: dict[str, Reference]) -> list[str]:
    """A note per ``--also`` source that is part of the reference (one crowd of a CRSArena-Dial folder):
    the panel reads it against the rest; an error where it holds the whole reference."""
    ids = {d.id for d in reference.dialogues}
    notes = []
    for name, other in others.items():
        shared = len(ids & {d.id for d in other.dialogues})
        if shared == len(ids):
            raise CrsevalError(
                f"{name} holds every dialogue of the reference: there is nothing to compare it with",
                field="--also",
                fix="pass another source, or one part of the reference (e.g. one crowd's file of a "
                "CRSArena-Dial folder)",
            )
        if shared:
            notes.append(
                f"{name} is part of the reference ({shared} of its {len(ids)} dialogues): the panel "
                f"reads it against the other {len(ids) - shared} — real users against real users of "
                "the same study."
            )
    return notes


def own_words_note(saved: dict | None, reference: str) -> str | None:
    """A warning where the run's simulated users (``saved``: its config.json) were worded from the
    reference's own users (its ``simulator.phrases`` and the reference are the same file, or one holds the
    other): the classifier then meets real turns it has seen in the simulated ones, and its AUC is
    optimistic."""
    if not isinstance(saved, dict):
        return None
    phrases = ((saved.get("config") or {}).get("simulator") or {}).get("phrases", "bundled")
    if phrases in ("bundled", "sample") or reference == "sample":
        return None
    words = Path(saved.get("cwd") or ".", phrases).resolve()
    ref = Path(reference).resolve()
    if words == ref or ref in words.parents or words in ref.parents:
        return (
            f"The simulated users were worded from {phrases}, the reference's own users: the "
            "discriminator meets turns it has seen and its AUC is optimistic — word them from other "
            "users (another crowd, another dataset)."
        )
    return None


def user_validity_output(
    tables: dict[str, pd.DataFrame], notes: list[str], reference: str, source: str
) -> Output:
    """The four pillars' tables, the figure and their report section."""
    out = Output(tables=dict(tables))
    disc = tables["shift_user_discriminator"]
    worst = D.worst(disc)
    floors = worst[worst["compared"] == "floor"]
    aucs = "; ".join(
        f"{r.source} {ci_text(r.discriminator_auc, r.discriminator_auc_lo, r.discriminator_auc_hi)} "
        f"({r.member})"
        for r in worst[worst["compared"] != "floor"].itertuples()
    )
    rep = tables["shift_user_repeats"].set_index("source")["repeated_share"]
    repeated = ", ".join(f"{s} {v:.0%}" for s, v in rep.items())
    out.figure(
        "shift_user_realism",
        lambda path: R.plot_realism(disc, tables.get("shift_user_counterfactual"), path),
        "Left: how well each discriminator of the panel tells each source's users from the real users' "
        "(AUC, 95 % CI; .5 = indistinguishable; the floor is two halves of the real users). Right: real users "
        "with the CRS they voted for minus the one they voted against, beside simulated users with a "
        "follower minus an ignorer, each feature scaled by its largest CI end.",
    )
    out.section(
        "Simulated users against real users",
        f"The simulated users of {source} against the real users of {reference}. A panel of "
        "discriminators (sentence embeddings and word/character n-grams, of single turns and of whole "
        "dialogues, and the dialogue's shape; titles, names and numbers masked; 5 folds grouped by user) "
        f"tells them apart at best at AUC {aucs} (.5 = indistinguishable; two halves of the real users: "
        f"at most {floors['discriminator_auc'].max():.2f}). Turns that repeat a turn of another dialogue "
        f"word for word: {repeated}. Alignment: each cue's simulated and real share with the human "
        "floor (two halves of the real users, split by user). " + " ".join(notes),
        tables=list(tables),
        figures=["shift_user_realism"],
    )
    return out


def shipped_evidence(
    user: str,
) -> tuple[float, float, float, str, int, int, int, pd.Series] | None:
    """How crseval's own simulated ``user`` compares with real users, as the validity gate recorded it
    (`crseval/validated/simulated_users.json`: `crseval shift validate`, 300 users × 12 turns on OpenDialKG's
    catalogue, four CRSs, seed 0, against CRSArena-Dial's shared half): the follower's users'
    AUC by the panel's worst member (the highest) and its 95 % CI, that member, the counterfactual features
    whose sign agrees with real users', of those with a clear real difference how many agree and how many
    there are, and the shares of turns said word for word in another dialogue (template, real users).
    None: not recorded."""
    rows = [r for r in validated.load("simulated_users").rows if r["user"] == user]
    disc = sorted(
        (r for r in rows if r["source"] == "template"), key=lambda r: -r["discriminator_auc"]
    )
    if not disc:
        return None
    signs = [r for r in rows if r["source"].startswith("sign of ")]
    clear = [r for r in signs if r["real_clear"]]
    auc = [disc[0][f"discriminator_auc{s}"] for s in ("", "_lo", "_hi")]
    return (
        *auc,
        disc[0]["member"],
        sum(bool(r["sign_agrees"]) for r in signs),
        sum(bool(r["sign_agrees"]) for r in clear),
        len(clear),
        pd.Series(
            {
                r["source"].removeprefix("repeats: "): r["repeated_share"]
                for r in rows
                if r["source"] in ("repeats: template", "repeats: real users")
            }
        ),
    )


SHIPPED_ON = "CRSArena-Dial's shared half, measured by crseval"
CROWD = "crs_arena_dial_open.json"  # the gate's --also row: the arena's open crowd against its closed crowd


def _crowds(member: str) -> str:
    """ "; the arena's two crowds of real users are told apart at .85 [.81, .90] by the same member" from
    the gate's record, "" where it holds no such row: what real people meet."""
    rows = validated.load("simulated_users").rows
    row = next((r for r in rows if r["source"] == CROWD and r["member"] == member), None)
    if row is None:
        return ""
    auc = ci_text(*(row[f"discriminator_auc{s}"] for s in ("", "_lo", "_hi")))
    return f"; the arena's two crowds of real users are told apart at {auc} by the same member"


def simulator_evidence(
    user: str,
    phrases: str = "bundled",
    measured: Mapping[str, pd.DataFrame] | None = None,
    rewritten: bool = False,
) -> str:
    """One sentence on how far the simulated users are like real ones: measured in this run where
    ``measured`` (a ``shift.validate`` run's tables) holds it, else the shipped figures — which are for
    the book's own words, so never quoted for users an LLM rewrote (``rewritten``: ``simulator.drift``)."""
    who = f"crseval's {user} users" + ("" if phrases == "bundled" else f", phrases from {phrases}")
    who += ", rewritten by an LLM" if rewritten else ""
    measured = measured or {}
    if "shift_user_discriminator" in measured:
        d = D.worst(measured["shift_user_discriminator"])
        aucs = ", ".join(
            f"{r.source} {ci_text(r.discriminator_auc, r.discriminator_auc_lo, r.discriminator_auc_hi)} "
            f"({r.member})"
            for r in d[d["compared"] == "simulated"].itertuples()
        )
        signs = ""
        if "shift_user_counterfactual" in measured:
            cf = measured["shift_user_counterfactual"]
            signs = f"; counterfactual signs as real users' on {int(cf['sign_agrees'].sum())} of {len(cf)}"
        if "shift_user_repeats" in measured:
            signs += _repeats(measured["shift_user_repeats"].set_index("source")["repeated_share"])
        return (
            f"Simulated users ({who}): told from real users at AUC {aucs} by the panel's best "
            f"discriminator (.5 = like people){signs} — measured in this run."
        )
    if rewritten:
        return (
            f"Simulated users ({who}): not compared with real users here, and the shipped figures are for "
            "users the LLM did not rewrite (the embedded model's rewrite made them easier to tell from "
            "people: see the shift guide) — run `crseval shift validate RUN --human <real users' "
            "dialogues>`."
        )
    shipped = shipped_evidence(user) if phrases == "bundled" else None
    if shipped is None:
        return (
            f"Simulated users ({who}): not compared with real users here — run `crseval shift validate "
            "RUN --human <real users' dialogues>`."
        )
    auc, lo, hi, member, agree, clear_agree, clear, shares = shipped
    return (
        f"Simulated users ({who}): told from real CRS users at AUC {ci_text(auc, lo, hi)} by the panel's "
        f"best discriminator ({member}; .5 = like people); counterfactual signs as real users' on {agree} of 5 features ({clear_agree} "
        f"of the {clear} with a clear real difference){_repeats(shares)}{_crowds(member)} — {SHIPPED_ON}; "
        "`crseval shift validate RUN --human <CRSArena-Dial>` measures it on a run."
    )


def _repeats(shares: pd.Series) -> str:
    """ "; turns said word for word in another dialogue: template 29 %, … (real users 23 %)" from the
    share per source (``shift_user_repeats``), "" without the real users' share to set them beside."""
    if "real users" not in shares:
        return ""
    simulated = ", ".join(f"{s} {v:.0%}" for s, v in shares.drop("real users").items())
    return (
        f"; turns said word for word in another dialogue: {simulated} "
        f"(real users {shares['real users']:.0%})"
    )
