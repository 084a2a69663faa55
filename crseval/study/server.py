"""The study's web server: a Starlette app over the study's database (:mod:`crseval.study.db`).

A participant arrives by the study's link (``/start?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…``): the welcome
page writes nothing but a visit count (a link scanner enrols no one); consenting enrols them and sends them
to their own page, ``/p/TOKEN`` (an unguessable token, bound to their browser by a cookie). There they
chat, answer, vote, and get their completion code; a reload or a new visit of the study link resumes where
they were. Every form carries a CSRF token, every page escapes what it shows (Jinja2 autoescaping; no
script at all), a message is limited in size and rate, and each change is committed before the answer.
The monitor page (``/monitor``) asks for ``CRSEVAL_STUDY_SECRET`` as its password and is off without it."""

from __future__ import annotations

import base64
import logging
import secrets
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Callable

from jinja2 import Environment, FileSystemLoader
from sqlalchemy.engine import Engine
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from crseval.study import flow
from crseval.study.config import LIKERT, StudyConfig
from crseval.study.crs_calls import Systems
from crseval.study.db import writing
from crseval.study.flow import Refused
from crseval.study.status import count_arrival, study_status

log = logging.getLogger("crseval.study")
ID = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
MAX_BODY = 64_000  # bytes of one form: a message, a questionnaire's answers
THREADS = 200  # requests handled at once (most wait on a CRS)
HEADERS = {  # no script, no framing, no referrer (a participant's token is in the URL)
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class StudyServer:
    """The study's pages and forms over its database; :meth:`app` is the ASGI app uvicorn serves."""

    def __init__(self, config: StudyConfig, engine: Engine, secret: str | None = None) -> None:
        env = Environment(
            loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True
        )
        self.config, self.engine, self.secret = config, engine, secret
        self.templates = Jinja2Templates(env=env)
        self.systems = Systems(config)
        self.cookie = f"crseval_{config.name}"

    # ---- helpers ------------------------------------------------------------------------------------
    def page(self, request: Request, name: str, http_status: int = 200, **context: Any) -> Response:
        context.setdefault("title", self.config.title)
        return self.templates.TemplateResponse(request, name, context, status_code=http_status)

    def participant(self, c, request: Request, token: str) -> dict[str, Any]:
        """The participant of ``token``, if this browser is theirs (the cookie set at consent)."""
        p = flow.by_token(c, token)
        if not secrets.compare_digest(request.cookies.get(self.cookie, ""), p["token"]):
            raise Refused(
                403,
                "This page belongs to another browser. Open the link the study platform gave you "
                "again to go on where you were.",
            )
        return p

    @staticmethod
    def checked(form: dict[str, str], p: dict[str, Any]) -> None:
        if not secrets.compare_digest(form.get("csrf", ""), p["csrf"]):
            raise Refused(403, "This form has expired. Go back, reload the page and send it again.")

    @staticmethod
    def to_page(token: str, **headers: str) -> Response:
        return RedirectResponse(f"/p/{token}", status_code=303, headers=headers)

    # ---- the welcome page and consent ---------------------------------------------------------------
    def start(self, request: Request, form: dict[str, str]) -> Response:
        count_arrival(self.engine)
        ids = {k: _id(request.query_params.get(q, "")) for k, q in PLATFORM.items()}
        token = secrets.token_urlsafe(24)
        response = self.page(
            request, "consent.html", consent=self.config.consent, ids=ids, csrf=token
        )
        secure = request.url.scheme == "https"  # behind a TLS proxy: never sent in clear
        response.set_cookie("crseval_csrf", token, httponly=True, samesite="strict", secure=secure)
        return response

    def consent(self, request: Request, form: dict[str, str]) -> Response:
        expected = request.cookies.get("crseval_csrf", "")
        if not expected or not secrets.compare_digest(form.get("csrf", ""), expected):
            raise Refused(403, "This form has expired. Open the study link again.")
        if form.get("agree") != "yes":
            raise Refused(400, "Please tick the box to agree, or close the page to leave.")
        ids = {k: _id(form.get(q, "")) for k, q in PLATFORM.items()}
        with writing(self.engine) as c:
            p = flow.enrol(c, self.config, ids, flow.now())
        log.info("participant %s enrolled (%s)", p["id"], p["arm"])
        response = self.to_page(p["token"])
        secure = request.url.scheme == "https"
        response.set_cookie(
            self.cookie, p["token"], httponly=True, samesite="lax", max_age=7 * 86400, secure=secure
        )
        return response

    # ---- a participant's own page -------------------------------------------------------------------
    def show(self, request: Request, form: dict[str, str], token: str) -> Response:
        with self.engine.connect() as c:
            p = self.participant(c, request, token)
            kind, n = flow.stage(p)
            if kind == "chat":
                return self.chat_page(c, request, p, n)
            if kind == "questions":
                about = f"About {_label(self.config, n)}:"
                return self.questions(request, p, about, [])
            if kind == "rate":
                from crseval.study.dialogues import dialogue

                mine = flow.rated_dialogues(c, p["id"])
                about = (
                    f"Dialogue {n + 1} of {len(mine)}: a user talking with a recommender system."
                )
                return self.questions(request, p, about, dialogue(self.config, mine[n])[1])
            if kind == "vote":
                return self.page(request, "vote.html", token=token, csrf=p["csrf"])
        return self.done(request, p)

    def chat_page(self, c, request: Request, p: dict[str, Any], n: int) -> Response:
        turns = flow.history(c, p["id"], n)
        for t in turns:
            late = "within" in (t["error"] or "")
            t["shown_error"] = "it did not answer in time" if late else "an error"
        said = sum(t["speaker"] == "user" for t in turns)
        return self.page(
            request,
            "chat.html",
            instructions=self.config.instructions,
            label=_label(self.config, n),
            turns=turns,
            unanswered=bool(turns) and turns[-1]["speaker"] == "user",
            token=p["token"],
            csrf=p["csrf"],
            form=secrets.token_urlsafe(12),
            max_chars=self.config.limits.message_chars,
            can_finish=said >= self.config.min_turns,
            min_turns=self.config.min_turns,
        )

    def questions(self, request: Request, p: dict[str, Any], about: str, shown: list) -> Response:
        return self.page(
            request,
            "questions.html",
            about=about,
            action=f"/p/{p['token']}/answers",
            csrf=p["csrf"],
            items=self.config.questionnaire.all_items(),
            likert=LIKERT,
            shown=shown,
        )

    def done(self, request: Request, p: dict[str, Any]) -> Response:
        outcome = p["outcome"] or "completed"
        end = self.config.completion[outcome]
        redirect = end.redirect.replace("{code}", end.code) if end.redirect else None
        return self.page(
            request, "done.html", message=ENDINGS[outcome], code=end.code, redirect=redirect
        )

    def message(self, request: Request, form: dict[str, str], token: str) -> Response:
        """One message: written before the CRS is asked, its reply (or error) written when it comes."""
        t0 = time.perf_counter()
        text, limits = form.get("text", "").strip(), self.config.limits
        if len(text) > limits.message_chars:
            raise Refused(
                413, f"Your message is too long (at most {limits.message_chars} characters)."
            )
        if not text:
            raise Refused(400, "Please write a message first.")
        with writing(self.engine) as c:
            p = self.participant(c, request, token)
            self.checked(form, p)
            kind, n = flow.stage(p)
            if kind != "chat":
                return self.to_page(token)
            turns = flow.history(c, p["id"], n)
            last = max((t["at"] for t in turns if t["speaker"] == "user"), default=0.0)
            if flow.now() - last < limits.min_seconds_between:
                raise Refused(429, "Please wait a moment before sending the next message.")
            said = flow.Said(n, "user", text, form=_id(form.get("form", "")))
            if not flow.add_turn(c, p, said, flow.now()):
                return self.to_page(token)  # this form was sent already: written once
        history = [{"speaker": t["speaker"], "text": t["text"]} for t in turns if not t["error"]]
        system = flow.chat_systems(p)[n]
        reply, error, ms = self.systems.reply(system, [*history, {"speaker": "user", "text": text}])
        with writing(self.engine) as c:
            flow.add_turn(
                c, p, flow.Said(n, "system", reply, latency_ms=ms, error=error), flow.now()
            )
            flow.crs_answered(c, p, error is not None)
            if p["failures"] >= limits.crs_failures:
                flow.finish(c, p, "crs_failed", flow.now())
            elif sum(t["speaker"] == "user" for t in turns) + 1 >= self.config.max_turns:
                flow.after_chat(c, p, n, flow.now())
        if error:
            log.info("participant %s: %s failed: %s", p["id"], system, error)
        total = 1000 * (time.perf_counter() - t0)
        return self.to_page(token, **{"Server-Timing": f"crs;dur={ms}, app;dur={total - ms:.1f}"})

    def finish_chat(self, request: Request, form: dict[str, str], token: str) -> Response:
        with writing(self.engine) as c:
            p = self.participant(c, request, token)
            self.checked(form, p)
            kind, n = flow.stage(p)
            if kind == "chat":
                said = sum(t["speaker"] == "user" for t in flow.history(c, p["id"], n))
                if said < self.config.min_turns:
                    raise Refused(
                        400, f"Please send at least {self.config.min_turns} messages first."
                    )
                flow.after_chat(c, p, n, flow.now())
        return self.to_page(token)

    def answers(self, request: Request, form: dict[str, str], token: str) -> Response:
        with writing(self.engine) as c:
            p = self.participant(c, request, token)
            self.checked(form, p)
            kind, n = flow.stage(p)
            if kind not in ("questions", "rate"):
                return self.to_page(token)  # sent twice: the first was taken
            mine = flow.rated_dialogues(c, p["id"]) if kind == "rate" else []
            unit = mine[n] if kind == "rate" else f"chat:{n}"
            passed = flow.save_answers(c, self.config, p, unit, form, flow.now())
            if not (passed and _gold(self.config, unit, form)):
                flow.finish(c, p, "failed_check", flow.now())
            elif kind == "rate" and n + 1 < len(mine):
                flow.move(c, p, f"rate:{n + 1}", flow.now())
            elif after := (kind == "questions" and flow.next_after_questions(self.config, n)):
                flow.move(c, p, after, flow.now())
            else:
                flow.finish(c, p, "completed", flow.now())
        return self.to_page(token)

    def vote(self, request: Request, form: dict[str, str], token: str) -> Response:
        with writing(self.engine) as c:
            p = self.participant(c, request, token)
            self.checked(form, p)
            if flow.stage(p)[0] != "vote":
                raise Refused(409, "Your vote was already recorded.")
            flow.save_vote(c, p, form.get("vote", ""), form.get("feedback", ""), flow.now())
            flow.finish(c, p, "completed", flow.now())
        return self.to_page(token)

    # ---- the researcher's pages ---------------------------------------------------------------------
    def monitor(self, request: Request, form: dict[str, str]) -> Response:
        if not self.secret:
            return PlainTextResponse(
                "The monitor is off: start the server with CRSEVAL_STUDY_SECRET set.", 404
            )
        if not _authorised(request.headers.get("authorization", ""), self.secret):
            return PlainTextResponse(
                "The monitor needs the study's secret as its password.",
                401,
                headers={"WWW-Authenticate": 'Basic realm="crseval study"'},
            )
        status = study_status(self.engine, self.config)
        return self.page(
            request,
            "monitor.html",
            title=f"Monitor: {self.config.name}",
            status=status,
            arm_columns=list(status["arms"][0]) if status["arms"] else [],
            crs_columns=list(status["crs"][0]) if status["crs"] else [],
        )

    def landing(self, request: Request, form: dict[str, str]) -> Response:
        return self.page(request, "message.html", message=LANDING)

    def health(self, request: Request, form: dict[str, str]) -> Response:
        return PlainTextResponse("ok")

    # ---- the app ------------------------------------------------------------------------------------
    def route(self, path: str, handler: Callable, method: str) -> Route:
        """``handler`` (a blocking function: the database, a CRS) run off the event loop; a refusal is
        a page with its status, and every answer carries :data:`HEADERS`."""

        async def endpoint(request: Request) -> Response:
            try:
                form = await _form(request) if request.method == "POST" else {}
                response = await run_in_threadpool(handler, request, form, **request.path_params)
            except Refused as r:
                token = request.path_params.get("token")
                back = f"/p/{token}" if token and r.status in (400, 413, 429) else None
                response = self.page(
                    request, "message.html", r.status, message=r.message, back=back
                )
            response.headers.update(HEADERS)
            return response

        return Route(path, endpoint, methods=[method], name=handler.__name__)

    def app(self) -> Starlette:
        @asynccontextmanager
        async def lifespan(app: Starlette):
            import anyio.to_thread

            anyio.to_thread.current_default_thread_limiter().total_tokens = THREADS
            yield
            self.systems.close()

        routes = [
            self.route("/", self.landing, "GET"),
            self.route("/healthz", self.health, "GET"),
            self.route("/start", self.start, "GET"),
            self.route("/start", self.consent, "POST"),
            self.route("/p/{token}", self.show, "GET"),
            self.route("/p/{token}/message", self.message, "POST"),
            self.route("/p/{token}/finish", self.finish_chat, "POST"),
            self.route("/p/{token}/answers", self.answers, "POST"),
            self.route("/p/{token}/vote", self.vote, "POST"),
            self.route("/monitor", self.monitor, "GET"),
        ]
        return Starlette(routes=routes, lifespan=lifespan)


def make_app(config: StudyConfig, engine: Engine, secret: str | None = None) -> Starlette:
    """The server of ``config`` over ``engine``; ``secret`` opens the monitor page (None: it is off)."""
    return StudyServer(config, engine, secret).app()


LANDING = "This is a study server: participants arrive by the link the study platform gives them."
ENDINGS = {
    "completed": "Thank you: you have completed the study.",
    "failed_check": "Thank you. Your answers did not pass an attention check, so the study ends here.",
    "crs_failed": "Thank you, and sorry: the system kept failing, so the study ends here.",
}


PLATFORM = {"pid": "PROLIFIC_PID", "study": "STUDY_ID", "session": "SESSION_ID"}


def _id(value: str) -> str:
    """A platform id or a form nonce as given, if it is one (letters, digits, _ and -, ≤ 64); else none."""
    return value if 0 < len(value) <= 64 and set(value) <= ID else ""


async def _form(request: Request) -> dict[str, str]:
    """A POST's fields; a body over :data:`MAX_BODY` is refused before it is read."""
    size = request.headers.get("content-length")
    if size is None or not size.isdigit() or int(size) > MAX_BODY:
        raise Refused(413, "This form is too large.")
    form = await request.form(max_files=0, max_fields=200, max_part_size=MAX_BODY)
    return {k: v for k, v in form.items() if isinstance(v, str)}


def _authorised(header: str, secret: str) -> bool:
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        _, _, password = base64.b64decode(encoded).decode("utf-8").partition(":")
    except (ValueError, UnicodeDecodeError):
        return False
    return secrets.compare_digest(password.encode(), secret.encode())


def _label(config: StudyConfig, chat: int) -> str:
    """How a participant sees the system: "System A" / "System B" in a pair, "the system" otherwise."""
    return f"System {'AB'[chat]}" if config.pairs else "The system"


def _gold(config: StudyConfig, unit: str, form: dict[str, str]) -> bool:
    """A gold dialogue's answers are its right ones (rate mode)."""
    right = config.gold.get(unit, {})
    return all(form.get(f"q_{item}", "").strip() == str(v) for item, v in right.items())
