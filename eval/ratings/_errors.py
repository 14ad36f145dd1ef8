"""The errors a rating study raises: each one is a sentence a user can act on (``VgmError``)."""
from __future__ import annotations

from rulesets import VgmError


class StudyError(VgmError):
    """A study file that is missing, not a study, or asked for something it does not hold."""


class AccessDenied(VgmError):
    """A wrong or missing token. Carries no detail about what exists, on purpose."""

    def __init__(self) -> None:
        super().__init__("access denied: open the personal link you were given (it carries ?token=...)")


class InvalidRating(VgmError):
    """A rating the study refuses: a score outside 1-5, an unknown item, the wrong kind of answer."""


class EnrollmentRefused(VgmError):
    """An enrollment, consent or completion the study refuses; nothing was written.

    ``reason`` is one of ``closed`` (no such enrollment link), ``full`` (quota reached), ``forged``
    (a participant id the platform would never send), ``missing`` (no participant id where the
    platform always sends one), ``reused`` (the id already has a session in this study from another
    platform session, or without proof that it is the same person), ``busy`` (the link enrolled its
    limit for the minute), ``consent`` (the consent form was not accepted), ``unfinished`` (completion
    asked before the last item), ``timed_out`` (a design study gave a silent rater's items to others). ``status`` is the HTTP status a page or the API answers with.
    """

    TITLES = {
        "closed": "This study link is not valid",
        "full": "This study is full",
        "forged": "This link is not valid for you",
        "missing": "Open this study from your study platform",
        "reused": "You are already taking part",
        "consent": "Consent is needed to take part",
        "unfinished": "Not finished yet",
        "busy": "Too many people are joining right now",
        "timed_out": "Your time ran out",
    }
    STATUS = {"closed": 404, "full": 409, "forged": 422, "missing": 422, "reused": 409, "consent": 403, "unfinished": 409,
              "busy": 429, "timed_out": 410}

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason

    @property
    def title(self) -> str:
        return self.TITLES.get(self.reason, "Not possible")

    @property
    def status(self) -> int:
        return self.STATUS.get(self.reason, 400)
