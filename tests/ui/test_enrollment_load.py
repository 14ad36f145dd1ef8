"""200 participants enroll through the open link at once and each rates 5 items over HTTP (real ``vgm ui``, loopback only).

The study has a design (issue 44): 80 items, each rated by exactly 10 participants, each participant a
random share of 4 plus the attention item, so the 200 places follow from 80 x 10 / 4.

Every participant gets exactly one token (even enrolling from two tabs at the same moment), nobody
rates an item twice, no rating is lost, and participant 201 finds the study full. Bounded: every
request has a timeout and the whole run a deadline.
"""
import asyncio
import sqlite3
import time
from dataclasses import dataclass, field

import aiohttp
import httpx
import numpy as np
import pytest

from eval.ratings import build_study, crowd_settings
from eval.ratings._demo import write_demo_runs

pytestmark = pytest.mark.slow  # a real server and 2,800 requests: about 30 s with start-up on a busy 2-core machine

PARTICIPANTS = 200
DEADLINE_S = 420
STUDY_ID = "5" * 24


@dataclass
class Figures:
    enroll: list[float] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    tokens: dict[int, set[str]] = field(default_factory=dict)
    rated: dict[int, list[int]] = field(default_factory=dict)
    codes: dict[int, str] = field(default_factory=dict)
    requests: int = 0
    failed: list[str] = field(default_factory=list)

    @staticmethod
    def ms(values: list[float], q: float) -> float:
        return 1000 * float(np.percentile(values, q))


@dataclass
class Reply:
    status: int
    body: dict


async def _send(client: aiohttp.ClientSession, figures: Figures, method: str, path: str, **kwargs) -> Reply:
    """One request, retried on a dropped connection only; enrolling and rating again are both safe to repeat.
    (aiohttp on the client side: with httpx the client used three times the CPU of the server it measured.)"""
    for attempt in range(3):
        try:
            figures.requests += 1
            async with client.request(method, path, **kwargs) as resp:
                return Reply(resp.status, await resp.json())
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError):
            if attempt == 2:
                raise
            await asyncio.sleep(0.3 * (attempt + 1))
    raise AssertionError("unreachable")


async def _participant(client: aiohttp.ClientSession, key: str, k: int, figures: Figures) -> None:
    body = {"key": key, "participant_id": f"{k:024x}", "study_id": STUDY_ID, "session_id": f"{k + 90000:024x}", "consent": True}
    start = time.perf_counter()
    both = await asyncio.gather(*(_send(client, figures, "POST", "/api/rate/enroll", json=body) for _ in range(2)))  # two tabs
    figures.enroll.append(time.perf_counter() - start)
    if any(r.status != 200 for r in both):
        figures.failed.append(f"enroll {k}: {[r.status for r in both]}")
        return
    figures.tokens[k] = {r.body["token"] for r in both}
    headers = {"Authorization": f"Bearer {next(iter(figures.tokens[k]))}"}
    figures.rated[k] = []
    for _ in range(10):
        got = await _send(client, figures, "GET", "/api/rate/next", headers=headers)
        item = got.body["item"]
        if item is None:
            break
        answer = {"item_id": item["id"], "naturalness": 1 + k % 5, "groundedness": 1 + (k + 1) % 5, "factual": 1 + (k + 2) % 5}
        start = time.perf_counter()
        sent = await _send(client, figures, "POST", "/api/rate/submit", json=answer, headers=headers)
        figures.submit.append(time.perf_counter() - start)
        if sent.status != 200:
            figures.failed.append(f"submit {k}: {sent.status} {str(sent.body)[:80]}")
            return
        figures.rated[k].append(item["id"])
    done = await _send(client, figures, "POST", "/api/rate/complete", headers=headers)
    if done.status == 200:
        figures.codes[k] = done.body["completion_code"]
    else:
        figures.failed.append(f"complete {k}: {done.status}")


async def _crowd(url: str, key: str, n: int) -> tuple[Figures, float]:
    assert url.startswith("http://127.0.0.1:")  # loopback only
    figures = Figures()
    connector = aiohttp.TCPConnector(limit=2 * n + 8)
    async with aiohttp.ClientSession(base_url=url, connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as client:
        start = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*(_participant(client, key, k, figures) for k in range(1, n + 1))), DEADLINE_S)
        return figures, time.perf_counter() - start


def _cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used (Linux /proc; 0 elsewhere)."""
    import os

    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def test_200_participants_enroll_at_once_each_gets_one_token_and_no_rating_is_lost(tmp_path):
    from ui.web._launch import ServerProcess

    runs = write_demo_runs(tmp_path / "demo", n=40)
    study, admin, summary = build_study(runs, tmp_path / "crowd.db", n=40, attention=1, per_item=10, per_rater=4,
                                        crowd=crowd_settings("prolific", completion_code="C0DE1234", enroll_rate=2 * PARTICIPANTS))
    assert summary.items == 81 and summary.quota == PARTICIPANTS  # 40 contexts x 2 runs + 1 attention item
    with ServerProcess(study=tmp_path / "crowd.db", log_path=tmp_path / "server.log") as server:
        cpu = _cpu_seconds(server.proc.pid)
        figures, seconds = asyncio.run(_crowd(server.url, study.enroll_key(), PARTICIPANTS))
        cpu = _cpu_seconds(server.proc.pid) - cpu
        late = httpx.post(server.url + "/api/rate/enroll", json={"key": study.enroll_key(), "participant_id": "f" * 24,
                                                                 "study_id": STUDY_ID, "session_id": "e" * 24, "consent": True})
        full_page = httpx.get(f"{server.url}/enroll/{study.enroll_key()}",
                              params={"PROLIFIC_PID": "f" * 24, "STUDY_ID": STUDY_ID, "SESSION_ID": "e" * 24})
        report = httpx.get(server.url + "/api/rate/report", params={"token": admin}).json()

    assert figures.failed == []
    assert all(len(t) == 1 for t in figures.tokens.values()) and len(figures.tokens) == PARTICIPANTS  # one token each
    assert len({next(iter(t)) for t in figures.tokens.values()}) == PARTICIPANTS  # and nobody shares one
    assert all(len(r) == 5 and len(set(r)) == 5 for r in figures.rated.values())  # 5 items each, none twice
    assert set(figures.codes.values()) == {"C0DE1234"} and len(figures.codes) == PARTICIPANTS
    conn = sqlite3.connect(study.path)
    raters = conn.execute("SELECT participant_id, token, completed_at FROM raters WHERE source = 'enrolled'").fetchall()
    assert len(raters) == PARTICIPANTS and len({r[0] for r in raters}) == PARTICIPANTS and all(r[2] for r in raters)
    stored = conn.execute("SELECT rater_id, item_id FROM ratings WHERE skipped = 0").fetchall()
    assert len(stored) == PARTICIPANTS * 5 and len(set(stored)) == len(stored)  # no rating lost, none doubled
    assert late.status_code == 409 and "places in this study are taken" in late.json()["error"]
    assert full_page.status_code == 409 and 'data-reason="full"' in full_page.text
    assert conn.execute("SELECT COUNT(*) FROM raters").fetchone()[0] == PARTICIPANTS  # the refusals wrote nothing
    assert report["ratings"] == PARTICIPANTS * 4 and report["attention_items"] == 1
    held = conn.execute("SELECT COUNT(*) FROM ratings x JOIN items i ON i.id = x.item_id WHERE i.attention = 0"
                        " GROUP BY x.item_id").fetchall()
    assert len(held) == 80 and {h[0] for h in held} == {10}  # every item rated by exactly 10 participants

    print(f"\n{PARTICIPANTS} participants at once, {figures.requests} requests in {seconds:.1f} s "
          f"({figures.requests / seconds:.0f} requests/s); enroll (two tabs each) p50 {figures.ms(figures.enroll, 50):.0f} ms, "
          f"p95 {figures.ms(figures.enroll, 95):.0f} ms; submit p50 {figures.ms(figures.submit, 50):.0f} ms, "
          f"p95 {figures.ms(figures.submit, 95):.0f} ms, max {1000 * max(figures.submit):.0f} ms; "
          f"server CPU {cpu:.1f} s ({1000 * cpu / figures.requests:.1f} ms a request); "
          f"{len(stored)} ratings stored, 0 lost, 0 doubled")
