"""Crowd plumbing for a study: open enrollment, platform participant ids, consent, completion, attention checks.

A study made with ``--crowd prolific|generic`` has an enrollment key. Its open link issues a
private rater token to each participant (up to the quota); the platform's participant id is
recorded once, and the same id coming back (in the same platform session) gets its own token
again. The rules live here and in ``_store``, so the page, the HTTP API and scripts all obey them.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping
from urllib.parse import quote, urlsplit

from ._errors import EnrollmentRefused, StudyError

PLATFORMS = ("prolific", "generic")
ATTENTION = "attention"
"""The condition name of attention items; never a condition in the statistics."""

PROLIFIC_REDIRECT = "https://app.prolific.com/submissions/complete?cc={code}"
CONSENT_MAX_BYTES = 100_000
COMMENT_MAX = 2000
ENROLL_RATE = 60
"""Default limit of new participants a minute through one open link: a real launch stays under it,
a script with the link cannot use up the quota in seconds."""

# Query parameters a platform puts on the link: Prolific's own, then common generic ones (MTurk's too).
PARAMS = {
    "prolific": {"participant": ("PROLIFIC_PID",), "study": ("STUDY_ID",), "session": ("SESSION_ID",)},
    "generic": {
        "participant": ("PID", "participant_id", "PARTICIPANT_ID", "workerId", "PROLIFIC_PID"),
        "study": ("STUDY_ID", "study_id", "hitId"),
        "session": ("SESSION_ID", "session_id", "assignmentId"),
    },
}
_PROLIFIC_ID = re.compile(r"[0-9a-fA-F]{24}")
_GENERIC_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}")
_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class CrowdSettings:
    """How a study meets a crowd: which platform, how many places, the code and where to send people at the end."""

    platform: str
    quota: int | None = None
    completion_code: str | None = None
    redirect: str | None = None
    enroll_rate: int | None = ENROLL_RATE  # new participants a minute the open link takes; None: no limit

    def finish_url(self) -> str | None:
        """Where the end page sends a participant: ``redirect`` with ``{code}`` filled in."""
        if not self.redirect:
            return None
        return self.redirect.replace("{code}", quote(self.completion_code or "", safe=""))

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> "CrowdSettings | None":
        return cls(**json.loads(text)) if text else None


def crowd_settings(
    platform: str,
    *,
    quota: int | None = None,
    completion_code: str | None = None,
    redirect: str | None = None,
    enroll_rate: int | None = ENROLL_RATE,
) -> CrowdSettings:
    """Checked crowd settings for ``vgm rate create``; every mistake is one ``StudyError`` line.

    A Prolific study needs a completion code, and without ``redirect`` sends participants to
    Prolific's completion page with it. ``{code}`` in ``redirect`` becomes the code. ``enroll_rate``
    caps new participants a minute through the open link.
    """
    if platform not in PLATFORMS:
        raise StudyError(f"--crowd {platform!r}: use prolific or generic")
    if quota is not None and quota < 1:
        raise StudyError(f"--quota {quota}: give the number of participants to enroll, 1 or more")
    if completion_code is not None and not _CODE.fullmatch(completion_code):
        raise StudyError(f"--completion-code {completion_code[:70]!r}: use 1-64 letters, digits, '-' or '_' (e.g. C1A2B3C4)")
    if platform == "prolific" and not completion_code:
        raise StudyError("--crowd prolific needs --completion-code CODE (the code in your Prolific study's settings)")
    if platform == "prolific" and not redirect:
        redirect = PROLIFIC_REDIRECT
    if redirect is not None:
        parts = urlsplit(redirect)
        if parts.scheme not in ("http", "https") or not parts.netloc or any(ch.isspace() for ch in redirect) or len(redirect) > 2000:
            raise StudyError(f"--redirect {redirect[:80]!r}: give a full http(s) address, e.g. {PROLIFIC_REDIRECT}")
    if enroll_rate is not None and not 1 <= enroll_rate <= 100_000:
        raise StudyError(f"--enroll-rate {enroll_rate}: give the new participants a minute the link may take, e.g. 60")
    return CrowdSettings(platform, quota, completion_code, redirect, enroll_rate)


def read_consent(path: str | Path) -> str:
    """The consent form (Markdown) a participant must accept before the first item; one line if unusable."""
    path = Path(path)
    if not path.is_file():
        raise StudyError(f"--consent {path}: no such file; write the consent form in Markdown, e.g. consent.md")
    if path.stat().st_size > CONSENT_MAX_BYTES:
        raise StudyError(f"--consent {path}: larger than {CONSENT_MAX_BYTES // 1000} kB; a consent form is a page of text")
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyError(f"--consent {path}: cannot read it as UTF-8 text ({getattr(exc, 'reason', None) or exc})") from None
    if not text:
        raise StudyError(f"--consent {path}: the file is empty; write the consent form in it")
    return text


@dataclass(frozen=True)
class Participant:
    """Who the platform says is arriving: its participant id, study id and session id (each may be missing)."""

    participant_id: str | None = None
    study_id: str | None = None
    session_id: str | None = None

    @property
    def query(self) -> dict[str, str]:
        """The parameters to carry through a form, under Prolific's names."""
        out = {"PROLIFIC_PID": self.participant_id, "STUDY_ID": self.study_id, "SESSION_ID": self.session_id}
        return {k: v for k, v in out.items() if v}


def participant_from(platform: str, params: Mapping[str, str]) -> Participant:
    """The participant a link's query parameters name, checked against the platform's id format.

    Prolific always sends ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` (24 hex digits each): a
    missing one is ``missing``, a malformed one ``forged``. A generic platform's id is optional
    (1-64 letters, digits and ``_.:@-``); without one every visit enrolls a new participant.
    """
    names = PARAMS.get(platform, PARAMS["generic"])

    def first(kind: str) -> str | None:
        for name in names[kind]:
            value = params.get(name)
            if value is not None:
                return str(value)
        return None

    got = {kind: first(kind) for kind in ("participant", "study", "session")}
    if platform == "prolific":
        if not got["participant"]:
            raise EnrollmentRefused("missing", "this link carries no Prolific participant id; open the study from Prolific")
        pattern = _PROLIFIC_ID
    else:
        pattern = _GENERIC_ID
    for kind, value in got.items():
        if not value:
            got[kind] = None
            continue
        if not pattern.fullmatch(value):
            raise EnrollmentRefused("forged", f"the {kind} id in this link is not one your study platform issues; "
                                              "open the study from the platform again")
    if platform == "prolific" and not (got["study"] and got["session"]):
        raise EnrollmentRefused("missing", "this link lacks Prolific's STUDY_ID or SESSION_ID; open the study from Prolific")
    return Participant(got["participant"], got["study"], got["session"])


def attention_passed(expect: dict | None, scores: Mapping[str, int | None], choice: str | None) -> bool | None:
    """Whether an answer to an attention item gives its obvious answer; None for an item that is not one.

    ``expect`` is ``{"max": {factor: value}}`` (those factors at most that value: the line is plainly
    wrong for the scene) or ``{"choice": "a"|"b"}`` (the side with the gold line).
    """
    if not expect:
        return None
    if "choice" in expect:
        return choice == expect["choice"]
    limits = expect.get("max") or {}
    return all(scores.get(k) is not None and scores[k] <= v for k, v in limits.items())
