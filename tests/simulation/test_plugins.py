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
            out = json.dumps({"reply": f"{len(body['history'])} turns"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
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
    finally:
        srv.shutdown()
