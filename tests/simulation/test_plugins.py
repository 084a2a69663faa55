"""Your own CRS as a callable or an HTTP endpoint."""

import pytest

from crseval.core.errors import CrsevalError
from crseval.simulation.plugins import CallableCRS, HttpCRS, load_callable


def test_callable_and_http_plugins():
    crs = CallableCRS(
        "mine", lambda h: {"text": f"you said {h[-1]['text']}", "constraints": {"genres": ["war"]}}
    )
    r = crs.respond([{"speaker": "user", "text": "hi"}])
    assert r.text == "you said hi"
    assert r.constraints == {"genres": ["war"]}
    assert CallableCRS("bad", lambda h: 42).respond([]).error
    assert CallableCRS("boom", lambda h: 1 / 0).respond([]).error.startswith("ZeroDivisionError")
    assert HttpCRS("down", "http://127.0.0.1:9/crs", timeout_s=0.5, retries=1).respond([]).error
    assert load_callable("json:dumps")([1]) == "[1]"
    with pytest.raises(CrsevalError, match="module:function"):
        load_callable("nocolon")


def test_http_crs_against_a_local_server():
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class H(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            html = self.path == "/html"  # a proxy's or framework's error page with status 200
            out = (
                b"<!DOCTYPE html><html><body>Bad gateway</body></html>"
                if html
                else json.dumps({"reply": f"{len(body['history'])} turns"}).encode()
            )
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if html else "application/json")
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass

    srv = HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        r = HttpCRS("h", f"http://127.0.0.1:{srv.server_port}/").respond(
            [{"speaker": "user", "text": "x"}]
        )
        assert r.text == "1 turns"
        assert r.error is None
        html = HttpCRS("h", f"http://127.0.0.1:{srv.server_port}/html", retries=1).respond([])
        assert html.error.startswith("not JSON (text/html), HTTP 200, starting '<!DOCTYPE html>")
        assert html.retries == 1
    finally:
        srv.shutdown()


def test_the_folders_own_module_wins_over_a_same_named_one_imported_before(tmp_path, monkeypatch):
    """`my_crs:respond` beside a config is that folder's file as it is now — not a module of the same name
    another folder put in sys.modules earlier (a notebook, a second run in one process), and an edit of
    the file is what the next load sees."""
    import sys
    import time

    from crseval.simulation.targets import module_file

    a, b = tmp_path / "a", tmp_path / "b"
    for folder, film in ((a, "Heat"), (b, "Alien")):
        folder.mkdir()
        (folder / "samename_crs.py").write_text(f"def respond(history):\n    return '{film}'\n")
    monkeypatch.syspath_prepend(str(a))
    __import__("samename_crs")  # folder a's module is now in sys.modules
    try:
        assert load_callable("samename_crs:respond", b)([]) == "Alien"
        assert module_file("samename_crs:respond", b) == b / "samename_crs.py"
        time.sleep(0.01)
        (b / "samename_crs.py").write_text("def respond(history):\n    return 'Up'\n")
        assert load_callable("samename_crs:respond", b)([]) == "Up"
    finally:
        sys.modules.pop("samename_crs", None)


def test_an_http_crs_that_fails_now_and_then_is_retried_and_its_retries_are_counted():
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    calls = []

    class H(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            calls.append(1)
            ok = len(calls) % 2 == 0  # every other call fails with a 503
            self.send_response(200 if ok else 503)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps({"text": "How about Heat?"}).encode() if ok else b"{}")

        def log_message(self, *a):
            pass

    srv = HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        crs = HttpCRS("h", f"http://127.0.0.1:{srv.server_port}/", retries=2)
        replies = [crs.respond([{"speaker": "user", "text": "x"}]) for _ in range(3)]
        assert [r.retries for r in replies] == [1, 1, 1] and not any(r.error for r in replies)
        assert len(calls) == 6
        gone = HttpCRS("h", f"http://127.0.0.1:{srv.server_port}/", retries=0)
        calls.clear()
        assert gone.respond([]).error == "HTTP 503" and gone.respond([]).retries == 0
    finally:
        srv.shutdown()


def test_a_reply_of_the_wrong_shape_names_what_it_held():
    """Issue #92: a dict without 'text' said only 'returned dict'."""
    error = CallableCRS("mine", lambda h: {"reply_text": "Heat", "items": []}).respond([]).error
    assert "a dict with keys 'reply_text', 'items'" in error and "{'text'" in error
    assert "an empty dict" in CallableCRS("mine", lambda h: {}).respond([]).error
    assert "'text' is a list" in CallableCRS("m", lambda h: {"text": ["Heat"]}).respond([]).error


def test_what_a_crs_prints_never_reaches_stdout(capsys):
    """Its lines go to the run's log (crseval.core.user_output.to_log) or, outside a run, to stderr."""
    from crseval.core.user_output import to_log

    def chatty(history):
        print("DEBUG: got", len(history), "turns")
        return "How about Heat?"

    logged = []
    with to_log(logged.append):
        assert CallableCRS("chatty", chatty).respond([{"speaker": "user", "text": "hi"}]).text
    print("crseval's own line")
    out = capsys.readouterr()
    assert out.out == "crseval's own line\n" and logged == [
        "CRS chatty printed: DEBUG: got 1 turns"
    ]
    CallableCRS("chatty", chatty).respond([])
    out = capsys.readouterr()
    assert out.out == "" and "CRS chatty printed: DEBUG: got 0 turns" in out.err
