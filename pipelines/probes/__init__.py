"""Private belief probes (MafiaScope): questions asked of a seat on a throw-away copy of its context.

``attach_probes(game, "default", model, "probes.jsonl")`` registers a listener that, after each
event, asks the due probes and appends answers to a JSONL probe log; the game never sees them.
"""
from ._answers import ANSWER_SHAPES, PlannedAction, dump_answer, PersonalityProfile, RoleAssessment, RoleBeliefs, SocialMap, SuspicionRanking
from ._dsl import NA, ProbeSet, ProbeSpec, ProbeSpecError, builtin_sets, load_probe_set, parse_probe_set, render_question
from ._engine import PROBE_STEP_PREFIX, ProbeRunner, attach_probes, batch_schema
from ._events import setup_players
from ._log import ROUND_END_SEQ, ProbeLogWriter, ProbeRecord

__all__ = [
    "ANSWER_SHAPES", "NA", "PROBE_STEP_PREFIX", "ROUND_END_SEQ",
    "PlannedAction", "PersonalityProfile", "ProbeLogWriter", "ProbeRecord", "ProbeRunner", "ProbeSet",
    "ProbeSpec", "ProbeSpecError", "RoleAssessment", "RoleBeliefs", "SocialMap", "SuspicionRanking",
    "attach_probes", "builtin_sets", "load_probe_set", "parse_probe_set", "render_question", "batch_schema",
    "dump_answer", "setup_players",
]
