"""One simulated session: the user simulator and a CRS talk for T turns; every turn is logged with
the CRS's constraints and the simulator's ground truth.

:func:`run_session` works in any process (local threads or a Ray worker): it takes the plain config
and rebuilds the KB (cached per process) and the CRS. Session ``s`` of every model uses the same
simulator seed, so models meet the same users (a paired design), and the same seed gives the same
session in any executor.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import numpy as np

from crseval.core.keys import key
from crseval.data.kb import MovieKB, load_kb
from crseval.llm import LLMConfig, LLMClient, make_client
from crseval.simulation.config import ModelConfig, SessionSpec, SimulatorSection
from crseval.simulation.crs import CRS, KBCRS
from crseval.simulation.persona import RealisticUser
from crseval.simulation.phrasebook import BOOK, book_from_dialogues
from crseval.simulation.plugins import CallableCRS, HttpCRS, load_callable
from crseval.simulation.user import SimulatorConfig, UserSimulator

_CLIENTS: dict[tuple[str, str | None], LLMClient] = {}
_LOCK = threading.Lock()


def session_seed(seed: int, session: int) -> int:
    return int(np.random.SeedSequence([seed, session]).generate_state(1)[0])


def repeat_seed(seed: int, user: int, repeat: int) -> int:
    """The CRS's seed in repeat ``repeat`` of simulated user ``user`` (``repeats`` > 1)."""
    return int(np.random.SeedSequence([seed, user, repeat, 1]).generate_state(1)[0])


def client_for(llm: LLMConfig, cache_path: str | None, role: str = "other") -> LLMClient:
    """One client per (LLM config, cache, role) per process, shared by the sessions running in it."""
    ident = (llm.model_dump_json(), cache_path, role)
    with _LOCK:
        if ident not in _CLIENTS:
            _CLIENTS[ident] = make_client(llm, cache_path, role=role)
        return _CLIENTS[ident]


def close_clients() -> None:
    with _LOCK:
        for c in _CLIENTS.values():
            c.close()
        _CLIENTS.clear()


@lru_cache(maxsize=4)
def phrasebook(phrases: str, kb: str | None) -> dict[str, tuple[str, ...]]:
    """The realistic user's phrasebook: the bundled one, or one grounded in real users' dialogues (built once
    per process)."""
    if phrases == "bundled":
        return BOOK
    from crseval.data.any_dialogues import read_dialogues

    return book_from_dialogues(read_dialogues(phrases), load_kb(kb))


def make_crs(model: ModelConfig, kb: MovieKB, seed: int, cache_path: str | None) -> CRS:
    if model.kind == "callable":
        return CallableCRS(model.name, load_callable(model.target or "", model.folder))
    if model.kind == "http":
        return HttpCRS(model.name, model.url or "")
    if model.kind == "reference":
        from crseval.simulation.references import ReferenceCRS

        return ReferenceCRS(model.name, model.reference, kb, seed=seed)
    client = client_for(model.llm, cache_path, "crs") if model.kind == "llm" else None
    return KBCRS(
        model.name,
        kb,
        client,
        prompt=model.prompt,
        shortlist=model.shortlist,
        temperature=model.llm.temperature,
        seed=seed,
    )


def simulated_user(
    sim: SimulatorSection, kb_path: str | None, kb, seed: int, cache_path: str | None
):
    """A simulated user: realistic (its phrasebook, grounded in ``kb_path``'s catalogue where its phrases
    come from real dialogues) or scripted, drifting with an LLM where the simulator config gives one."""
    drift = client_for(sim.drift, cache_path, "simulated user") if sim.drift else None
    user = (RealisticUser if sim.user == "realistic" else UserSimulator)(
        kb,
        seed,
        SimulatorConfig(
            sim.error_rate, sim.contradiction_rate, sim.blend_rate, tuple(sim.shift_every)
        ),
        drift,
        (sim.drift.temperature, sim.drift.max_tokens) if sim.drift else (0.0, 256),
    )
    if sim.user == "realistic":
        user.book = phrasebook(sim.phrases, kb_path)
    return user


def _converse(user, crs, n_turns: int) -> tuple[list[dict], list[str], int]:
    """Up to ``n_turns`` exchanges: (each turn with the user's truth, the CRS's errors, its retried calls).
    A failed CRS turn ends the session (recorded, excluded from the statistics); so does a user's goodbye
    or silence."""
    history: list[dict[str, str]] = []
    turns, errors, retries = [], [], 0
    text, truth = user.opening()
    for t in range(n_turns):
        history.append({"speaker": "user", "text": text})
        reply = crs.respond(history)
        retries += reply.retries
        if reply.error:
            errors.append(f"turn {t}: {reply.error}")
        history.append({"speaker": "system", "text": reply.text})
        turns.append(
            {
                "turn": t,
                "user": text,
                "system": reply.text,
                "constraints": reply.constraints,
                "candidates": reply.candidates,
                "truth": truth,
            }
        )
        if reply.error or truth.get("end"):
            break  # a failed CRS turn ends the session (recorded, excluded from the statistics); so does a user's goodbye
        if t + 1 < n_turns:
            said = user.reply(t + 1, reply.text)
            if said is None:  # the user left without a word
                break
            text, truth = said
    return turns, errors, retries


def run_session(
    config: dict[str, Any] | SessionSpec,
    model_name: str,
    session: int,
    cache_path: str | None = None,
) -> dict[str, Any]:
    """Simulate one session and return its record (key ``model|session``). ``config``: a
    :class:`SessionSpec` or its plain JSON (what a Ray worker receives)."""
    cfg = config if isinstance(config, SessionSpec) else SessionSpec.model_validate(config)
    model = next(m for m in cfg.models if m.name == model_name)
    kb = load_kb(cfg.kb)
    user_index = session // cfg.repeats  # repeated sessions of one simulated user share its seed
    seed = session_seed(cfg.seed, user_index)
    sim = cfg.simulator
    user = simulated_user(cfg.simulator, cfg.kb, kb, seed, cache_path)
    crs = make_crs(
        model,
        kb,
        seed if cfg.repeats == 1 else repeat_seed(cfg.seed, user_index, session % cfg.repeats),
        cache_path,
    )
    turns, errors, retries = _converse(user, crs, cfg.turns)
    return {
        "key": key(model.name, session),
        "model": model.name,
        "session": session,
        "user": user_index,
        "seed": seed,
        "true_genre": user.true_genre,
        "start_genre": user.start_genre,
        "turns": turns,
        "errors": errors,
        **({"retries": retries} if retries else {}),  # CRS calls repeated (an HTTP CRS's failures)
        **({"end": getattr(user, "end", None) or "open"} if sim.user == "realistic" else {}),
    }
