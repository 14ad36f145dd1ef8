"""Blind human rating studies of GM utterances (Tachikuma 6.2): storage, building from runs, report.

    study, admin_token, summary = build_study(["runs/A", "runs/B"], "study.db", n=60, include_human=True)
    alice = Study.open("study.db").admin(admin_token).add_rater("alice")
    Study.open("study.db").rater(alice.token).submit(item_id, 4, 5, 3)
    report = study_report(Study.open("study.db").admin(admin_token))
"""
from ._build import HUMAN, REFERENCE_FIELDS, BuildSummary, build_study, load_run, reference_of
from ._criteria import CRITERIA, CRITERION_IDS, Criterion
from ._report import (
    BTScore,
    MeanCI,
    StudyReport,
    bradley_terry,
    export_csv,
    krippendorff_alpha,
    mean_ci,
    plot_report,
    study_report,
)
from ._store import (
    AccessDenied,
    AdminView,
    InvalidRating,
    ItemView,
    Progress,
    Rater,
    RaterView,
    RatingRow,
    Study,
    StudyError,
)

__all__ = [
    "HUMAN", "REFERENCE_FIELDS", "BuildSummary", "build_study", "load_run", "reference_of",
    "CRITERIA", "CRITERION_IDS", "Criterion",
    "BTScore", "MeanCI", "StudyReport", "bradley_terry", "export_csv", "krippendorff_alpha", "mean_ci",
    "plot_report", "study_report",
    "AccessDenied", "AdminView", "InvalidRating", "ItemView", "Progress", "Rater", "RaterView", "RatingRow",
    "Study", "StudyError",
]
