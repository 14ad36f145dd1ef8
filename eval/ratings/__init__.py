"""Blind human rating studies of GM utterances (Tachikuma 6.2): storage, building from runs, report.

    study, admin_token, summary = build_study(["runs/A", "runs/B"], "study.db", n=60, include_human=True)
    alice = Study.open("study.db").admin(admin_token).add_rater("alice")
    Study.open("study.db").rater(alice.token).submit(item_id, 4, 5, 3)
    report = study_report(Study.open("study.db").admin(admin_token))

A design (``build_study(..., per_item=3, per_rater=30)``) gives each item exactly 3 ratings and each
rater a random share of 30 items (plus the attention items); ``AdminView.coverage`` says how far it got.

A crowd study (``build_study(..., crowd=crowd_settings("prolific", quota=200, completion_code="C0DE"),
attention=4, consent=read_consent("consent.md"))``) has an open enrollment link: ``Study.enroll``
issues each participant a private token, ``RaterView.complete`` gives the completion code after the
last item, and ``study_report(..., exclude_failed_attention=True)`` leaves out raters who failed an
attention item.
"""
from ._build import (
    HUMAN,
    REFERENCE_FIELDS,
    BuildSummary,
    attention_items,
    build_from_items,
    build_study,
    load_run,
    reference_of,
)
from ._design import DROP_AFTER_MINUTES, Design, design, load_for, share
from ._criteria import CRITERIA, CRITERION_IDS, DEFAULT_FILE, CriteriaSet, Criterion, default_criteria, read_criteria
from ._crowd import (
    ATTENTION,
    COMMENT_MAX,
    ENROLL_RATE,
    PLATFORMS,
    CrowdSettings,
    EnrollmentRefused,
    Participant,
    attention_passed,
    crowd_settings,
    participant_from,
    read_consent,
)
from ._judge import Agreement, JudgeRun, judge_agreement, judge_models, judge_study
from ._report import (
    BTScore,
    MeanCI,
    RaterStats,
    StudyReport,
    bradley_terry,
    check_output,
    export_csv,
    iso_time,
    krippendorff_alpha,
    mean_ci,
    plot_report,
    rater_stats,
    study_report,
)
from ._store import (
    AccessDenied,
    AdminView,
    Completion,
    InvalidRating,
    ItemView,
    Progress,
    Rater,
    RaterView,
    RatingRow,
    Study,
    StudyError,
    check_rater_name,
    check_rater_names,
)

__all__ = [
    "HUMAN", "REFERENCE_FIELDS", "BuildSummary", "attention_items", "build_from_items", "build_study", "load_run", "reference_of",
    "ATTENTION", "COMMENT_MAX", "ENROLL_RATE", "PLATFORMS", "CrowdSettings", "EnrollmentRefused", "Participant", "attention_passed", "crowd_settings",
    "participant_from", "read_consent",
    "CRITERIA", "CRITERION_IDS", "DEFAULT_FILE", "CriteriaSet", "Criterion", "default_criteria", "read_criteria", "DROP_AFTER_MINUTES", "Design", "design", "load_for", "share",
    "Agreement", "JudgeRun", "judge_agreement", "judge_models", "judge_study",
    "BTScore", "MeanCI", "RaterStats", "StudyReport", "bradley_terry", "check_output", "export_csv", "iso_time", "krippendorff_alpha",
    "mean_ci", "plot_report", "rater_stats", "study_report",
    "AccessDenied", "AdminView", "Completion", "InvalidRating", "ItemView", "Progress", "Rater", "RaterView", "RatingRow",
    "Study", "StudyError", "check_rater_name", "check_rater_names",
]
