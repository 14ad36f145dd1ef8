"""Attack both web servers on 127.0.0.1 as a hostile player or a bot would, and kill the table mid-turn.

    python bench/attack_servers.py            # about 250 hostile requests, then 10 kill -9 rounds
    python bench/attack_servers.py --kills 3  # fewer kills

It starts ``vgm table serve`` (ambush, a fake OpenAI-compatible model on 127.0.0.1 that streams
slowly) and ``vgm ui --study`` (a demo study), both as child processes, and sends them requests
in six families: sizes (100 MB bodies with and without a token, endless chunked bodies, huge
headers and URLs, a body that trickles), depths (JSON nested to 100,000), encodings (lone
surrogates, invalid UTF-8, UTF-16, NaN, control characters, escape sequences), tokens (missing,
wrong, revoked, a player's on the host's routes, in the body only, oddly spelled), races (undo,
notes, revoke and regenerate against lines in flight; one rating submitted 20 times at once) and
concurrent players (every seat sending at once, rounds of it).

A request *held* when the server answered as it should (a hostile one: 4xx with ``{"error": ...}``,
or a protocol-level refusal, promptly; a fair one: its answer) and stayed healthy afterwards; it
*failed* on a 5xx, a bare or non-JSON error from the app, a hang, a crash, a poisoned state (the
host's view or the next line failing), a refused line that reached another player's page, or memory
that grew with what was sent. Then, ``--kills`` times: lines from every seat at once, and kill -9 of
the table while the GM is answering one; after each restart every line the room had accepted (its
journal) must be answered in the session or listed as unanswered for its player.

Prints each request that failed, a table of tried/held/failed per family and the kill rounds' count
of accepted, answered, unanswered and lost lines. A script, not a test: nothing here is timed.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import logging
import select
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipelines.llm.fake_server import FakeServer  # noqa: E402
from ui.web._launch import ServerProcess, TableProcess  # noqa: E402

MB = 1024 * 1024
WORDS = ("Steel rings against steel as the goblins scatter through the bracken, "
         "and the mule brays while Tamsin ducks behind the cart.")


# ----- bookkeeping ----------------------------------------------------------------------------------


@dataclass
class Tally:
    tried: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    held: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, family: str, what: str, ok: bool, detail: str = "") -> bool:
        with self.lock:
            self.tried[family] += 1
            if ok:
                self.held[family] += 1
            else:
                self.failures.append(f"[{family}] {what}: {detail}")
        return ok


def error_shaped(r: httpx.Response) -> bool:
    try:
        body = r.json()
    except ValueError:
        return False
    return isinstance(body, dict) and set(body) == {"error"} and isinstance(body["error"], str) and "\n" not in body["error"]


def refused(r: httpx.Response, statuses: tuple[int, ...] = ()) -> tuple[bool, str]:
    """A hostile request's answer: a 4xx (one of ``statuses`` if given) with the one error shape."""
    ok = 400 <= r.status_code < 500 and (not statuses or r.status_code in statuses) and error_shaped(r)
    return ok, f"{r.status_code} {r.text[:160]!r}"


def raw_request(port: int, head: bytes, body_chunks=(), timeout: float = 30.0) -> tuple[int | None, bytes, int, float]:
    """Send ``head`` then body chunks until the server answers or closes; (status, answer, bytes sent, seconds)."""
    started = time.perf_counter()
    sent = 0
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head)
        for chunk in body_chunks:
            readable, _, _ = select.select([s], [], [], 0)
            if readable:
                break
            try:
                s.sendall(chunk)
                sent += len(chunk)
            except OSError:  # the server closed its end: it answered (or refused) without reading on
                break
            if time.perf_counter() - started > timeout:
                break
        s.settimeout(max(1.0, timeout - (time.perf_counter() - started)))
        try:
            while True:
                got = s.recv(65536)
                if not got:
                    break
                answer += got
                if b"\r\n\r\n" in answer and _complete(answer):
                    break
        except OSError:
            pass
    status = None
    if answer.startswith(b"HTTP/1."):
        try:
            status = int(answer.split(b" ", 2)[1])
        except (IndexError, ValueError):
            status = None
    return status, answer, sent, time.perf_counter() - started


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":", 1)[1])
    return False


def megabytes(n: int):
    chunk = b"x" * MB
    for _ in range(n):
        yield chunk


def rss_mb(pid: int) -> float:
    import psutil

    return psutil.Process(pid).memory_info().rss / MB


# ----- the table ------------------------------------------------------------------------------------


class Table:
    """A served room and the ways to poke it."""

    def __init__(self, root: Path, fake: FakeServer, name: str = "room") -> None:
        env = {"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "attack", "VGM_NO_CACHE": "1",
               "VGM_CACHE_DIR": str(root / "cache")}
        self.process = TableProcess(root / f"{name}.json", ["--scenario", "ambush", "--model", "openai:attack", "--memory", "off",
                                                            "--seed", "3"], env=env, log_path=root / f"{name}.server.log")
        self.http = httpx.Client(timeout=60)

    def start(self) -> "Table":
        self.process.start()
        self.tokens = self.process.tokens
        return self

    @property
    def url(self) -> str:
        return self.process.url

    def seats(self) -> list[str]:
        return [s for s in self.tokens if s != "host"]

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def post(self, path: str, seat: str | None, body=None, **kw) -> httpx.Response:
        headers = {**(self.auth(seat) if seat else {}), **kw.pop("headers", {})}
        return self.http.post(self.url + path, json=body, headers=headers, **kw)

    def state(self, seat: str = "host") -> dict:
        r = self.http.get(self.url + "/api/state", headers=self.auth(seat))
        r.raise_for_status()
        return r.json()

    def healthy(self) -> tuple[bool, str]:
        """The host sees the table, and a harmless line (a free roll) is answered."""
        try:
            st = self.state()
            r = self.post("/api/act", self.seats()[0], {"text": "/roll 1d4"})
        except (httpx.HTTPError, ValueError) as exc:
            return False, f"not healthy: {type(exc).__name__} {exc}"
        return (r.status_code == 200 and "turn" in st), f"state ok, /roll -> {r.status_code} {r.text[:120]!r}"


def attack_table(t: Table, tally: Tally) -> None:
    port = t.process.port
    host, brisa = "host", "Brisa Tallowmere"
    seats = t.seats()
    start_rss = t.process.rss_mb()

    # -- sizes -----------------------------------------------------------------------------------------
    fam = "table: sizes"
    for path in ("/api/act", "/api/notes", "/api/undo", "/api/renew"):
        head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {100 * MB}\r\n\r\n".encode()
        status, answer, sent, secs = raw_request(port, head, megabytes(100))
        tally.record(fam, f"100 MB to {path} without a token", status == 403 and sent < 20 * MB and secs < 10,
                     f"status {status}, {sent / MB:.1f} MB read, {secs:.1f} s")
    for path, seat in (("/api/act", brisa), ("/api/notes", host)):
        head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {t.tokens[seat]}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {100 * MB}\r\n\r\n").encode()
        status, answer, sent, secs = raw_request(port, head, megabytes(100))
        tally.record(fam, f"100 MB to {path} with a good token", status == 413 and sent < 20 * MB, f"status {status}, {sent / MB:.1f} MB sent")
        head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {t.tokens[seat]}\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n").encode()
        chunks = (b"%x\r\n%s\r\n" % (len(c), c) for c in megabytes(100))
        status, answer, sent, secs = raw_request(port, head, chunks)
        tally.record(fam, f"endless chunked body to {path}", status == 413 and sent < 20 * MB, f"status {status}, {sent / MB:.1f} MB sent")
    for what, notes, want in (("250 notes", ["a note"] * 250, 400), ("a 3,000-character note", ["n" * 3000], 400),
                              ("1.1 MB of notes", ["n" * 1999] * 550, 413)):
        r = t.post("/api/notes", host, {"notes": notes})
        ok, why = refused(r, (want,))
        tally.record(fam, what, ok, why)
    r = t.post("/api/act", brisa, {"text": "I " + "really " * 200 + "attack"})
    ok, why = refused(r, (400,))
    tally.record(fam, "a 1,400-character line", ok and "characters" in r.text, why)
    for what, head in [
        ("a 100 KB header", f"GET /api/state HTTP/1.1\r\nHost: x\r\nX-Junk: {'a' * 100_000}\r\n\r\n".encode()),
        ("2,000 headers", ("GET /api/state HTTP/1.1\r\nHost: x\r\n" + "".join(f"X-{i}: {i}\r\n" for i in range(2000)) + "\r\n").encode()),
        ("a 200 KB address", f"GET /api/state?token={'t' * 200_000} HTTP/1.1\r\nHost: x\r\n\r\n".encode()),
        ("a request line of garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)) + b"\r\n\r\n"),
        ("a negative Content-Length", b"POST /api/act HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"),
        ("two Content-Lengths", b"POST /api/act HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 900\r\n\r\nhello"),
    ]:
        status, answer, sent, secs = raw_request(port, head, timeout=15)
        alive = t.http.get(t.url + "/healthz").status_code == 200
        tally.record(fam, what, (status is None or 400 <= status < 500) and alive and secs < 15, f"status {status}, {secs:.1f} s, alive {alive}")
    # a body that trickles in: refused after the body timeout, the server answering others meanwhile
    trickle = {}

    def slow_body() -> None:
        head = (f"POST /api/act HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {t.tokens[brisa]}\r\nContent-Type: application/json\r\n"
                "Content-Length: 1000\r\n\r\n").encode()
        def drip():
            for _ in range(200):
                time.sleep(0.2)
                yield b" "
        trickle["result"] = raw_request(port, head, drip(), timeout=60)

    dripping = threading.Thread(target=slow_body)
    dripping.start()
    time.sleep(1)
    others = t.http.get(t.url + "/api/state", headers=t.auth(host)).status_code
    dripping.join(70)
    status = trickle.get("result", (None,))[0]
    tally.record(fam, "a body that trickles in (a byte every 0.2 s)", status == 408 and others == 200, f"status {status}, others {others}")
    grown = t.process.rss_mb() - start_rss
    tally.record(fam, "memory after ~1 GB of refused bodies", grown < 60, f"RSS {grown:+.0f} MB")

    # -- depths ----------------------------------------------------------------------------------------
    fam = "table: depths"
    for depth in (33, 100, 1000, 10_000, 30_000, 100_000):
        for body in (b"[" * depth + b"]" * depth, b'{"text": ' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"):
            r = t.http.post(t.url + "/api/act", content=body, headers={**t.auth(brisa), "Content-Type": "application/json"})
            ok, why = refused(r, (400, 413))
            tally.record(fam, f"JSON nested {depth:,} deep", ok, why)
    r = t.post("/api/notes", host, {"notes": [[["deep"]]]})
    ok, why = refused(r, (400,))
    tally.record(fam, "notes as nested lists", ok, why)

    # -- encodings ---------------------------------------------------------------------------------------
    fam = "table: encodings"
    bodies = {
        "a lone surrogate in a note": (b'{"notes": ["\\ud800x"]}', "/api/notes", host),
        "a lone low surrogate in a line": (b'{"text": "I hide \\udc00"}', "/api/act", brisa),
        "a reversed surrogate pair": (b'{"text": "\\ude00\\ud83d"}', "/api/act", brisa),
        "invalid UTF-8 bytes": (b'{"text": "I hide \xff\xfe"}', "/api/act", brisa),
        "an overlong UTF-8 slash": (b'{"text": "\xc0\xaf"}', "/api/act", brisa),
        "UTF-16 with a BOM": ('{"text": "I hide"}'.encode("utf-16"), "/api/act", brisa),
        "latin-1 text": ('{"notes": ["caf\u00e9"]}'.encode("latin-1"), "/api/notes", host),
        "a raw control character in a string": (b'{"text": "I hide\x07"}', "/api/act", brisa),
        "NaN": (b'{"text": NaN}', "/api/act", brisa),
        "Infinity": (b'{"text": Infinity}', "/api/act", brisa),
        "1e999": (b'{"text": 1e999}', "/api/act", brisa),
        "a 2**80 number": (b'{"text": 1208925819614629174706176}', "/api/act", brisa),
        "not JSON": (b"text=I+hide", "/api/act", brisa),
        "JSON that is a string": (b'"I hide"', "/api/act", brisa),
        "JSON that is a list": (b'["I hide"]', "/api/act", brisa),
        "null": (b"null", "/api/act", brisa),
        "the line as a number": (b'{"text": 7}', "/api/act", brisa),
        "the line as an object": (b'{"text": {"a": 1}}', "/api/act", brisa),
        "the seat as a list": (b'{"seat": ["Brisa"]}', "/api/renew", host),
        "notes as a number": (b'{"notes": 7}', "/api/notes", host),
        "notes with a number in them": (b'{"notes": ["a", 7]}', "/api/notes", host),
        "a truncated body": (b'{"text": "I hi', "/api/act", brisa),
        "an empty line": (b'{"text": "   "}', "/api/act", brisa),
        "a line of control characters only": (b'{"text": "\\u001b\\u0007\\u0000"}', "/api/act", brisa),
    }
    for what, (body, path, seat) in bodies.items():
        r = t.http.post(t.url + path, content=body, headers={**t.auth(seat), "Content-Type": "application/json"})
        ok, why = refused(r, (400, 413, 422))
        tally.record(fam, what, ok, why)
    for what, ctype in (("a form body", "application/x-www-form-urlencoded"), ("multipart", "multipart/form-data; boundary=x"),
                        ("text/plain JSON", "text/plain")):
        r = t.http.post(t.url + "/api/notes", content=b"notes=a", headers={**t.auth(host), "Content-Type": ctype})
        ok, why = refused(r, (400,))
        tally.record(fam, what, ok, why)
    # cleaned, not refused: escape sequences and NULs in notes are dropped; the state stays readable
    hostile = "Ambush\x1b[2J\x1b]0;owned\x07 at dusk\x00\x9b31m; \u202eevil\u202c \U0001f5e1"
    r = t.post("/api/notes", host, {"notes": [hostile, "plain"]})
    kept = r.json().get("notes", []) if r.status_code == 200 else []
    clean = bool(kept) and not any(c in kept[0] for c in "\x1b\x07\x00\x9b") and "\U0001f5e1" in kept[0]
    tally.record(fam, "escape sequences, BEL, NUL and C1 in a note are dropped", clean, f"{r.status_code} {kept[:1]!r}")
    for what, params, headers in [("Last-Event-ID '\u00b2'", {}, {"Last-Event-ID": "\u00b2".encode()}),
                                  ("after=-1", {"after": "-1"}, {}), ("after=abc", {"after": "abc"}, {}),
                                  ("after=10**40", {"after": "9" * 40}, {})]:
        try:
            with t.http.stream("GET", t.url + "/api/events", params={"token": t.tokens[brisa], **params}, headers=headers, timeout=5) as s:
                ok = s.status_code == 200
                status = s.status_code
        except httpx.HTTPError as exc:
            ok, status = False, type(exc).__name__
        tally.record(fam, f"an event stream with {what}", ok, f"status {status}")
    ok, why = t.healthy()
    tally.record(fam, "the table plays on after the encodings", ok, why)

    # -- tokens --------------------------------------------------------------------------------------
    fam = "table: tokens"
    bad_tokens = {"no token": {}, "a bare Bearer": {"Authorization": "Bearer"}, "a wrong token": {"Authorization": "Bearer nope-nope-nope-nope"},
                  "a 10 KB token": {"Authorization": "Bearer " + "a" * 10_000},
                  "a Basic scheme": {"Authorization": "Basic " + t.tokens[host]},
                  "a token in a cookie": {"Cookie": f"token={t.tokens[host]}"},
                  "the host token plus one character": {"Authorization": f"Bearer {t.tokens[host]}x"},
                  "the host token in another case": {"Authorization": f"Bearer {t.tokens[host].swapcase()}"},
                  "SQL in the token": {"Authorization": "Bearer ' OR 1=1 --"},
                  "a latin-1 byte in the token": {"Authorization": "Bearer caf\xe9".encode("latin-1")}}
    for what, headers in bad_tokens.items():
        for path, body in (("/api/act", {"text": "I hide"}), ("/api/notes", {"notes": ["mine"]}), ("/api/undo", {})):
            r = t.http.post(t.url + path, json=body, headers=headers)
            ok, why = refused(r, (403,))
            tally.record(fam, f"{what} on {path}", ok and r.json() == {"error": "access denied"}, why)
        r = t.http.get(t.url + "/api/state", headers=headers)
        tally.record(fam, f"{what} on /api/state", r.status_code == 403 and error_shaped(r), f"{r.status_code}")
    for what, params in (("%00 in ?token=", "token=%00"), ("%ff in ?token=", "token=%ff%fe"),
                         ("two tokens, the second good", f"token=x&token={t.tokens[host]}"),
                         ("the good token twice", f"token={t.tokens[host]}&token={t.tokens[host]}")):
        r = t.http.get(t.url + "/api/state?" + params)
        tally.record(fam, what, r.status_code == 403 and error_shaped(r), f"{r.status_code} {r.text[:80]!r}")
    r = t.http.post(t.url + "/api/act", json={"token": t.tokens[brisa], "text": "I hide"})
    ok, why = refused(r, (403,))
    tally.record(fam, "a good token in the body only (read after the body: refused)", ok, why)
    for path, body in (("/api/undo", {}), ("/api/regenerate", {}), ("/api/notes", {"notes": ["mine now"]}), ("/api/renew", {"seat": "host"})):
        r = t.post(path, brisa, body)
        ok, why = refused(r, (403,))
        tally.record(fam, f"a player's token on the host's {path}", ok, why)
    r = t.post("/api/act", host, {"text": "I hide", "character": "Zed\x1b[31m"})
    ok, why = refused(r, (400,))
    tally.record(fam, "the host speaking for an unknown character", ok and "\x1b" not in r.text, why)
    # a revoked link: denied at once, everywhere, and the new one works
    old = t.tokens["Oskar Venn"]
    r = t.post("/api/renew", host, {"seat": "Oskar"})
    new = r.json().get("link", "").split("token=")[-1]
    denied = [t.http.post(t.url + "/api/act", json={"text": "I hide"}, headers={"Authorization": f"Bearer {old}"}).status_code,
              t.http.get(t.url + "/api/state", params={"token": old}).status_code, t.http.get(t.url + "/", params={"token": old}).status_code]
    t.tokens["Oskar Venn"] = new
    tally.record(fam, "a revoked link, then its new one", denied == [403, 403, 403] and t.state("Oskar Venn")["you"]["character"] == "Oskar Venn",
                 f"old link: {denied}")
    page = t.http.get(t.url + "/", params={"token": "<script>alert(1)</script>"})
    tally.record(fam, "a script as the page's token", page.status_code == 403 and "<script>alert" not in page.text, f"{page.status_code}")

    # -- races -------------------------------------------------------------------------------------------
    fam = "table: races"
    pool = cf.ThreadPoolExecutor(16)
    st = t.state()
    current = st["turn"] or seats[0]
    futures = [pool.submit(t.post, "/api/act", current, {"text": "I attack the nearest goblin"})]
    futures += [pool.submit(t.post, "/api/undo", host, {}), pool.submit(t.post, "/api/notes", host, {"notes": ["race note"]}),
                pool.submit(t.post, "/api/act", host, {"text": "/roll 1d20"}), pool.submit(t.post, "/api/regenerate", host, {})]
    futures += [pool.submit(t.post, "/api/act", s, {"text": "/roll 2d6"}) for s in seats]
    for f in futures:
        r = f.result()
        tally.record(fam, "act, undo, notes, regenerate and rolls at once", r.status_code < 500 and (r.status_code == 200 or error_shaped(r)),
                     f"{r.status_code} {r.text[:100]!r}")
    # a renewal racing the renewed seat's own lines: after the renewal answers, the old token is denied
    old = t.tokens["Ilya Thorncastle"]
    acts = [pool.submit(t.http.post, t.url + "/api/act", json={"text": "/roll 1d6"}, headers={"Authorization": f"Bearer {old}"}) for _ in range(6)]
    r = t.post("/api/renew", host, {"seat": "Ilya"})
    after = t.http.post(t.url + "/api/act", json={"text": "/roll 1d6"}, headers={"Authorization": f"Bearer {old}"})
    t.tokens["Ilya Thorncastle"] = r.json().get("link", "").split("token=")[-1]
    statuses = [f.result().status_code for f in acts]
    tally.record(fam, "a link renewed while its seat is acting", after.status_code == 403 and all(s in (200, 403) for s in statuses),
                 f"during {statuses}, after {after.status_code}")
    ok, why = t.healthy()
    tally.record(fam, "the table plays on after the races", ok, why)

    # -- concurrent players --------------------------------------------------------------------------------
    fam = "table: concurrent players"
    followers = {s: [] for s in seats}
    stop = threading.Event()

    def follow(seat: str) -> None:
        try:
            with httpx.stream("GET", t.url + "/api/events", params={"token": t.tokens[seat]}, timeout=httpx.Timeout(5, read=60)) as s:
                for line in s.iter_lines():
                    if line.startswith("data:"):
                        followers[seat].append(json.loads(line[5:]))
                    if stop.is_set():
                        return
        except httpx.HTTPError:
            return

    threads = [threading.Thread(target=follow, args=(s,), daemon=True) for s in seats]
    for th in threads:
        th.start()
    time.sleep(0.5)
    sent: dict[str, list[str]] = defaultdict(list)
    for round_ in range(4):
        st = t.state()
        jobs = []
        for s in seats:
            text = f"I attack the nearest goblin (round {round_})" if s == st["turn"] else f"I shout at the goblins (round {round_}, {s.split()[0]})"
            sent[s].append(text)
            jobs.append((s, text, pool.submit(t.post, "/api/act", s, {"text": text})))
        jobs.append(("host", "/roll 1d20", pool.submit(t.post, "/api/act", host, {"text": "/roll 1d20"})))
        for s, text, f in jobs:
            r = f.result()
            tally.record(fam, f"{s} in round {round_}", r.status_code < 500 and (r.status_code == 200 or error_shaped(r)),
                         f"{r.status_code} {r.text[:100]!r}")
    time.sleep(1.0)
    stop.set()
    # every page heard whole turns, and never another seat's refused line
    log_texts = [x["text"] for x in t.state()["log"]]

    def logged(text: str) -> bool:  # a roll is logged with its dice after a colon
        return text in log_texts or (text.startswith("/roll") and any(x.startswith(text + ":") for x in log_texts))

    for s in seats:
        heard = followers[s]
        leaked = [e for e in heard if e.get("kind") == "said" and not logged(e.get("text", "")) and e.get("who") != s]
        opens = "".join("[" if e["kind"] == "said" else "]" if e["kind"] in ("done", "error") else "" for e in heard)
        nested = "[[" in opens
        tally.record(fam, f"{s}'s page heard no refused line of another seat, turns whole", not leaked and not nested,
                     f"leaked {[e.get('text') for e in leaked][:2]}, turns {opens}")
    pool.shutdown()
    ok, why = t.healthy()
    tally.record(fam, "the table plays on after the crowd", ok, why)


# ----- the rating server ------------------------------------------------------------------------------


def attack_rating(root: Path, tally: Tally) -> None:
    from eval.ratings import build_study
    from eval.ratings._demo import write_demo_runs

    runs = write_demo_runs(root / "demo", n=12)
    study, admin, _ = build_study(runs, root / "study.db", n=10)
    raters = [study.owner().add_rater(f"r{i}").token for i in range(3)]
    with ServerProcess(study=root / "study.db", log_path=root / "ui.server.log") as server:
        http = httpx.Client(timeout=30)
        url, port = server.url, server.port
        pid = server.proc.pid
        start_rss = rss_mb(pid)
        bearer = {"Authorization": f"Bearer {raters[0]}"}
        fam = "rating: sizes"
        for path in ("/api/rate/submit", "/api/rate/consent", "/gradio_api/queue/join", "/enroll/x"):
            head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {100 * MB}\r\n\r\n".encode()
            status, answer, sent, secs = raw_request(port, head, megabytes(100))
            want = (401,) if path.startswith("/api/rate/") else (413,)
            tally.record(fam, f"100 MB to {path} without a token", status in want and sent < 20 * MB and secs < 10,
                         f"status {status}, {sent / MB:.1f} MB read, {secs:.1f} s")
        head = (f"POST /api/rate/submit HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {raters[0]}\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n").encode()
        status, answer, sent, secs = raw_request(port, head, (b"%x\r\n%s\r\n" % (len(c), c) for c in megabytes(100)))
        tally.record(fam, "an endless chunked body with a good token", status == 413 and sent < 20 * MB, f"status {status}, {sent / MB:.1f} MB sent")
        for what, head in [("a 100 KB header", f"GET /api/rate/next HTTP/1.1\r\nHost: x\r\nX-Junk: {'a' * 100_000}\r\n\r\n".encode()),
                           ("a 200 KB address", f"GET /api/rate/next?token={'t' * 200_000} HTTP/1.1\r\nHost: x\r\n\r\n".encode())]:
            status, answer, sent, secs = raw_request(port, head, timeout=15)
            alive = http.get(url + "/healthz").status_code == 200
            tally.record(fam, what, (status is None or 400 <= status < 500) and alive, f"status {status}, alive {alive}")
        r = http.post(url + "/api/rate/submit", json={"item_id": 1, "naturalness": 3, "groundedness": 3, "factual": 3, "comment": "c" * 100_000}, headers=bearer)
        ok, why = refused(r, (413, 422))
        tally.record(fam, "a 100,000-character comment", ok, why)
        grown = rss_mb(pid) - start_rss
        tally.record(fam, "memory after ~500 MB of refused bodies", grown < 60, f"RSS {grown:+.0f} MB")

        fam = "rating: depths"
        for depth in (33, 1000, 30_000, 100_000):
            for path, headers in (("/api/rate/submit", bearer), ("/gradio_api/queue/join", {})):
                r = http.post(url + path, content=b"[" * depth + b"]" * depth, headers={**headers, "Content-Type": "application/json"})
                ok, why = refused(r, (400, 413))
                tally.record(fam, f"JSON nested {depth:,} deep to {path}", ok, why)

        fam = "rating: encodings"
        item = http.get(url + "/api/rate/next", headers=bearer).json()["item"]["id"]
        for what, body in {"a lone surrogate in a comment": b'{"item_id": %d, "skip": true, "comment": "\\ud800"}' % item,
                           "invalid UTF-8": b'{"item_id": %d, "skip": true, "comment": "\xff"}' % item,
                           "NaN seconds": b'{"item_id": %d, "skip": true, "seconds": NaN}' % item,
                           "a 2**80 item id": b'{"item_id": 1208925819614629174706176, "skip": true}',
                           "true as a score": b'{"item_id": %d, "naturalness": true, "groundedness": 3, "factual": 3}' % item,
                           "an unknown field": b'{"item_id": %d, "skip": true, "admin": true}' % item,
                           "not JSON": b"item_id=1", "a list": b"[1, 2, 3]", "UTF-16": '{"item_id": 1}'.encode("utf-16")}.items():
            r = http.post(url + "/api/rate/submit", content=body, headers={**bearer, "Content-Type": "application/json"})
            ok, why = refused(r, (400, 413, 422))
            tally.record(fam, what, ok, why)
        r = http.post(url + "/api/rate/submit", headers=bearer, json={"item_id": item, "naturalness": 4, "groundedness": 4, "factual": 4,
                                                                     "comment": "fine\x1b]0;owned\x07\x00 really"})
        mine = http.get(url + "/api/rate/mine", headers=bearer).json()["ratings"]
        stored = [m.get("comment") for m in mine if m["item_id"] == item]
        tally.record(fam, "a comment with an escape sequence is stored clean", r.status_code == 200 and stored == ["fine]0;owned really"],
                     f"{r.status_code} {stored!r}")
        for what, form in (("a consent form with a lone surrogate", b"token=%ED%A0%80&consent=yes"), ("a consent form of bytes", b"\xff\xfe\x00\x01")):
            r = http.post(url + "/consent", content=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
            tally.record(fam, what, 400 <= r.status_code < 500, f"{r.status_code}")

        fam = "rating: tokens"
        for what, headers, params in [("no token", {}, {}), ("a wrong token", {"Authorization": "Bearer nope"}, {}),
                                      ("SQL in the token", {"Authorization": "Bearer ' OR '1'='1"}, {}),
                                      ("a 10 KB token", {"Authorization": "Bearer " + "a" * 10_000}, {}),
                                      ("a token in a cookie", {"Cookie": f"token={raters[0]}"}, {}),
                                      ("%00 in ?token=", {}, {"token": "\x00"}), ("the admin token plus one", {"Authorization": f"Bearer {admin}x"}, {})]:
            for method, path in (("GET", "/api/rate/next"), ("POST", "/api/rate/submit"), ("GET", "/api/rate/export.csv"), ("POST", "/api/rate/complete")):
                r = http.request(method, url + path, headers=headers, params=params, json={"item_id": 1, "skip": True} if method == "POST" else None)
                ok, why = refused(r, (401,))
                tally.record(fam, f"{what} on {method} {path}", ok, why)
        r = http.get(url + "/api/rate/report", headers=bearer)
        ok, why = refused(r, (401,))
        tally.record(fam, "a rater's token on the report", ok, why)

        fam = "rating: races"
        view = http.get(url + "/api/rate/next", headers={"Authorization": f"Bearer {raters[1]}"}).json()["item"]["id"]
        with cf.ThreadPoolExecutor(20) as pool:
            rs = list(pool.map(lambda i: http.post(url + "/api/rate/submit", headers={"Authorization": f"Bearer {raters[1]}"},
                                                   json={"item_id": view, "naturalness": 1 + i % 5, "groundedness": 3, "factual": 3}), range(20)))
            rs += list(pool.map(lambda i: http.post(url + "/api/rate/submit", headers={"Authorization": f"Bearer {raters[2]}"},
                                                    json={"item_id": view, **({"skip": True} if i % 2 else {"naturalness": 2, "groundedness": 2, "factual": 2})}),
                                range(10)))
        rows = sqlite3.connect(root / "study.db").execute("SELECT rater_id, item_id, COUNT(*) FROM ratings GROUP BY rater_id, item_id HAVING COUNT(*) > 1").fetchall()
        for i, r in enumerate(rs):
            tally.record(fam, f"one item submitted at once ({i})", r.status_code == 200 or (r.status_code < 500 and error_shaped(r)), f"{r.status_code} {r.text[:80]!r}")
        tally.record(fam, "each rater's item stored once", not rows, f"duplicates {rows}")
        alive = http.get(url + "/api/rate/next", headers=bearer).status_code
        tally.record(fam, "the rating server plays on", alive == 200, f"{alive}")


# ----- kill -9 mid-turn ----------------------------------------------------------------------------------


def read_journal(path: Path) -> dict[int, dict]:
    entries: dict[int, dict] = {}
    if not path.exists():
        return entries
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            e = json.loads(raw)
        except ValueError:
            continue
        if isinstance(e, dict) and isinstance(e.get("n"), int) and e.get("state") != "mark":
            entries.setdefault(e["n"], {}).update(e)
    return entries


def in_session(e: dict, session_log: list[tuple[str, str]]) -> bool:
    """Whether journal entry ``e``'s line is in the session's log (a roll is logged with its dice after a colon)."""
    text = e.get("text", "")
    if text.lower().startswith("/roll"):
        expr = text[5:].replace(" ", "")
        return any(tx.startswith("/roll ") and tx[6:].split(":")[0].replace(" ", "") == expr for _, tx in session_log)
    return any(tx == text for _, tx in session_log)


def kill_rounds(root: Path, fake: FakeServer, kills: int) -> dict[str, int]:
    """``kills`` times: every seat sends at once, kill -9 while the GM streams its answer, reopen, check."""
    counts = defaultdict(int)
    room = 0
    t = Table(root, fake, name=f"kill{room}").start()
    journal = t.process.session.with_name(t.process.session.stem + ".journal.jsonl")
    accepted_ever: dict[int, dict] = {}
    for k in range(kills):
        st = t.state()
        if not st["fight"]:  # the goblins are beaten: a fresh room for the next rounds
            t.process.stop()
            room += 1
            t = Table(root, fake, name=f"kill{room}").start()
            journal = t.process.session.with_name(t.process.session.stem + ".journal.jsonl")
            accepted_ever = {}
            st = t.state()
        seats = t.seats()
        warm = t.post("/api/act", seats[k % len(seats)], {"text": f"/roll 1d6+{k}"})  # answered before the burst: must survive
        answers: dict[str, object] = {f"/roll 1d6+{k}": warm.status_code}
        asked = len([b for b in fake.requests if b.get("stream")])

        def send(seat: str, text: str) -> None:
            try:
                answers[text] = t.post("/api/act", seat, {"text": text}).status_code
            except httpx.HTTPError as exc:
                answers[text] = type(exc).__name__

        lines = [(s, f"I attack the nearest goblin (kill {k})" if s == st["turn"] else f"I ready my shield (kill {k}, {s.split()[0]})")
                 for s in seats] + [("host", f"/roll 1d20+{k}")]
        senders = [threading.Thread(target=send, args=line) for line in lines]
        for th in senders:
            th.start()
            time.sleep(0.05)
        deadline = time.time() + 60
        while time.time() < deadline and len([b for b in fake.requests if b.get("stream")]) <= asked:
            time.sleep(0.02)  # wait for the GM to start streaming the accepted line's words
        time.sleep(0.3 + (k % 3) * 1.2)  # while the model thinks, or as its answer arrives and the next line starts
        t.process.kill()
        for th in senders:
            th.join(30)
        before = read_journal(journal)
        t.process.start()
        t.tokens = t.process.tokens
        host_view = t.state()
        log = [(x["speaker"], x["text"]) for x in host_view["log"]]
        session_log = [(x["speaker"], x["text"]) for x in json.loads(t.process.session.read_text())["log"]]
        listed = {u["n"]: u for u in host_view["unanswered"]}
        mine = {s: {u["n"] for u in t.state(s)["unanswered"]} for s in seats}
        for n, e in before.items():
            if n in accepted_ever:
                continue  # judged in an earlier round
            accepted_ever[n] = e
            counts["accepted"] += 1
            state = e.get("state")
            if state == "answered":
                ok = in_session(e, session_log)
                counts["answered" if ok else "lost"] += 1
                if not ok:
                    print(f"  LOST answered line in kill {k}: #{n} {e.get('who')}: {e.get('text')!r}")
            elif state in ("refused", "failed", "settled"):
                counts["refused"] += 1
            elif state in ("accepted", "started", "interrupted"):
                in_log = in_session(e, session_log)
                shown = n in listed and (e.get("who") is None or n in mine.get(e.get("who"), set()))
                if in_log or shown:
                    counts["answered after restart" if in_log else "listed unanswered"] += 1
                else:
                    counts["lost"] += 1
                    print(f"  LOST in kill {k}: #{n} {e.get('who')}: {e.get('text')!r} ({state})")
        for text, status in answers.items():  # an acknowledged line is in the session
            if status == 200:
                counts["acknowledged"] += 1
                if not in_session({"text": text}, session_log):
                    counts["lost"] += 1
                    print(f"  LOST acknowledged line in kill {k}: {text!r}")
        counts["kills"] += 1
        print(f"  kill {k + 1}: {len(before)} journal entries; {len(listed)} listed unanswered; answers {sorted(set(map(str, answers.values())))}",
              flush=True)
    t.process.stop()
    return counts


# ----- main --------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--root", type=Path, default=None)
    args = ap.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="vgm-attack-"))
    root.mkdir(parents=True, exist_ok=True)
    logging.getLogger("aiohttp").setLevel(logging.CRITICAL)  # the fake model's own complaints when a killed server hangs up
    print(f"attacking both servers on 127.0.0.1 (work folder {root}); load: "
          f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}", flush=True)
    tally = Tally()
    with FakeServer(reply=WORDS, delay_s=0.2) as fake:
        table = Table(root, fake).start()
        try:
            attack_table(table, tally)
        finally:
            table.process.stop()
        print("  table attacked", flush=True)
        attack_rating(root, tally)
        print("  rating server attacked", flush=True)
        fake.delay_s = 2.0  # the GM's words take a while: a kill lands mid-turn
        kills = kill_rounds(root, fake, args.kills)
    print()
    for line in tally.failures:
        print("FAILED", line)
    print(f"{'family':<28} {'tried':>6} {'held':>6} {'failed':>7}")
    for fam in tally.tried:
        print(f"{fam:<28} {tally.tried[fam]:6d} {tally.held[fam]:6d} {tally.tried[fam] - tally.held[fam]:7d}")
    tried, held = sum(tally.tried.values()), sum(tally.held.values())
    print(f"{'total':<28} {tried:6d} {held:6d} {tried - held:7d}")
    print(f"kill -9 mid-turn: {kills['kills']} kills; {kills['acknowledged']} acknowledged lines all in the session; "
          f"lines accepted {kills['accepted']}: answered {kills['answered']}, "
          f"refused {kills['refused']}, listed unanswered for their player {kills['listed unanswered']}, "
          f"answered after restart {kills['answered after restart']}; lost {kills['lost']}")
    print(f"load at end: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    sys.exit(1 if tried != held or kills["lost"] else 0)


if __name__ == "__main__":
    main()
