"""`crseval study pilot`: crseval's simulated users take part over HTTP as people would — the start link,
consent, a chat with the words of :mod:`crseval.simulation` users, the questionnaire (attention checks
answered right), the vote, the completion code — all at once. A dry run of the whole pipeline before
paying anyone, and the server's load test: each message's round trip is timed beside the CRS's own time
(the server's ``Server-Timing`` header), so what the server adds is measured apart from the CRS."""

from __future__ import annotations

import html
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Callable

from crseval.study.config import StudyConfig

HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)">')
SYSTEM_TURN = re.compile(r'<div class="turn system">.*?</span>(.*?)</div>', re.S)
ITEM = re.compile(r'name="q_(\w+)" value="([^"]+)"')


@dataclass
class Participant:
    """What one simulated participant did and saw."""

    index: int
    pid: str = ""  # the PROLIFIC_PID it arrived with
    code: str = ""  # the completion code shown at the end ("" if it never got there)
    sent: int = 0  # messages the server acknowledged
    round_trips_ms: list[float] = field(
        default_factory=list
    )  # each message's POST, as the client saw it
    crs_ms: list[float] = field(default_factory=list)  # the CRS's part of each (Server-Timing)
    handler_ms: list[float] = field(default_factory=list)  # the handler's own part, CRS excluded
    error: str = ""


@dataclass
class Pilot:
    participants: list[Participant]
    seconds: float

    @property
    def added_ms(self) -> list[float]:
        """What the server added to each message: its round trip less the CRS's time."""
        return [
            max(0.0, rt - crs)
            for p in self.participants
            for rt, crs in zip(p.round_trips_ms, p.crs_ms)
        ]

    def lost(self, engine) -> int:
        """Messages the server acknowledged that its database does not hold."""
        from sqlalchemy import func, select

        from crseval.study.db import participants, turns

        q = (
            select(participants.c.pid, func.count())
            .join(turns, turns.c.participant == participants.c.id)
            .where(turns.c.speaker == "user")
            .group_by(participants.c.pid)
        )
        with engine.connect() as c:
            held = dict(c.execute(q).all())
        return sum(max(0, p.sent - held.get(p.pid, 0)) for p in self.participants)

    def summary(self, config: StudyConfig) -> dict[str, object]:
        import numpy as np

        codes = {c.code: o for o, c in config.completion.items()}
        added = self.added_ms
        ended = [codes.get(p.code, "did not finish") for p in self.participants]
        return {
            "participants": len(self.participants),
            **{o: ended.count(o) for o in [*config.completion, "did not finish"]},
            "messages acknowledged": sum(p.sent for p in self.participants),
            "server added p50 ms": round(float(np.percentile(added, 50)), 1) if added else None,
            "server added p95 ms": round(float(np.percentile(added, 95)), 1) if added else None,
            "seconds": round(self.seconds, 1),
            "first error": next((p.error for p in self.participants if p.error), ""),
        }


def run_pilot(
    config: StudyConfig,
    url: str,
    users: int,
    *,
    seed: int = 0,
    deadline_s: float = 600,
    progress: Callable[[int], None] | None = None,
) -> Pilot:
    """``users`` simulated participants through the server at ``url``, all at once; each stops at its
    completion code, its first error, or the deadline."""
    t0 = time.perf_counter()
    stop = t0 + deadline_s
    out: list[Participant] = []
    lock = threading.Lock()
    with ThreadPoolExecutor(max_workers=users) as pool:
        futures = [pool.submit(_participant, config, url, i, seed, stop) for i in range(users)]
        for f in as_completed(futures):
            with lock:
                out.append(f.result())
            if progress:
                progress(1)
    return Pilot(sorted(out, key=lambda p: p.index), time.perf_counter() - t0)


def _participant(config: StudyConfig, url: str, index: int, seed: int, stop: float) -> Participant:
    import httpx

    me = Participant(index)
    rng = random.Random(seed * 100_003 + index)
    with httpx.Client(base_url=url, timeout=config.limits.crs_timeout_s + 30) as client:
        try:
            _take_part(client, config, me, rng, seed, stop)
        except (httpx.HTTPError, RuntimeError, IndexError, ValueError) as e:
            me.error = f"participant {index}: {type(e).__name__}: {e}"
    return me


def _take_part(client, config: StudyConfig, me: Participant, rng, seed: int, stop: float) -> None:
    me.pid = f"pilot{seed}x{me.index}x{rng.getrandbits(40):x}"
    ids = {"PROLIFIC_PID": me.pid, "STUDY_ID": "pilot"}
    page = _ok(client.get("/start", params={**ids, "SESSION_ID": f"s{me.index}"}))
    form = dict(HIDDEN.findall(page.text))
    page = _ok(client.post("/start", data={**form, "agree": "yes"}, follow_redirects=True))
    token = str(page.url).rstrip("/").rsplit("/", 1)[-1]
    chats = 0
    while time.perf_counter() < stop:
        text = page.text
        if 'id="code"' in text:
            me.code = html.unescape(re.search(r'id="code">([^<]*)<', text).group(1))
            return
        hidden = dict(HIDDEN.findall(text))
        if 'id="send"' in text:
            page = _chat(
                client, config, me, token, hidden, rng, seed * 7919 + me.index * 2 + chats, stop
            )
            chats += 1
        elif 'id="submit-answers"' in text:
            page = _answer(client, config, token, hidden, text, rng)
        elif 'id="submit-vote"' in text:
            vote = {"vote": rng.choice(["A", "B", "tie"]), "feedback": "pilot"}
            page = _ok(
                client.post(f"/p/{token}/vote", data={**hidden, **vote}, follow_redirects=True)
            )
        else:
            raise RuntimeError(f"a page the pilot does not know ({page.status_code})")
    raise RuntimeError("the deadline passed")


def _chat(client, config: StudyConfig, me: Participant, token: str, hidden, rng, seed: int, stop):
    """One chat: the simulated user's opening, then its reply to each answer, until it leaves or the
    study's turn limit; then finish the chat."""
    from crseval.data.kb import load_kb
    from crseval.simulation.config import SimulatorSection
    from crseval.simulation.session import simulated_user

    user = simulated_user(SimulatorSection(), config.kb, load_kb(config.kb), seed, None)
    text, truth = user.opening()
    planned = rng.randint(config.min_turns, max(config.min_turns, min(config.max_turns, 6)))
    for t in range(planned):
        data = {**hidden, "text": text, "form": f"f{t}x{rng.getrandbits(32):x}"}
        t0 = time.perf_counter()
        r = client.post(f"/p/{token}/message", data=data)
        me.round_trips_ms.append(1000 * (time.perf_counter() - t0))
        if r.status_code != 303:
            raise RuntimeError(f"a message was refused: HTTP {r.status_code}")
        me.sent += 1
        timing = r.headers.get("server-timing", "")
        crs, app = (re.search(rf"{k};dur=([\d.]+)", timing) for k in ("crs", "app"))
        me.crs_ms.append(float(crs.group(1)) if crs else 0.0)
        me.handler_ms.append(float(app.group(1)) if app else 0.0)
        page = _ok(client.get(f"/p/{token}"))
        if 'id="send"' not in page.text or time.perf_counter() > stop:
            return page  # the study ended the chat (its turn limit, or the CRS failed)
        hidden = dict(HIDDEN.findall(page.text))
        replies = SYSTEM_TURN.findall(page.text)
        said = user.reply(t + 1, html.unescape(replies[-1]) if replies else "")
        if said is None and t + 1 >= config.min_turns:
            break
        text = said[0] if said else "Any other ideas?"
        time.sleep(config.limits.min_seconds_between)  # as fast as the study lets a person write
    return _ok(client.post(f"/p/{token}/finish", data=hidden, follow_redirects=True))


def _answer(client, config: StudyConfig, token: str, hidden, text: str, rng):
    """The questionnaire: a plausible answer to each item, each attention check answered right."""
    expected = {
        i.id: str(i.expect) for i in config.questionnaire.all_items() if i.expect is not None
    }
    choices: dict[str, list[str]] = {}
    for item, value in ITEM.findall(text):
        choices.setdefault(item, []).append(value)
    answers = {f"q_{k}": expected.get(k) or rng.choice(v) for k, v in choices.items()}
    data = {**hidden, **answers, "q_feedback": "a pilot participant"}
    return _ok(client.post(f"/p/{token}/answers", data=data, follow_redirects=True))


def _ok(response):
    if response.status_code >= 400:
        raise RuntimeError(f"HTTP {response.status_code} from {response.url.path}")
    return response
