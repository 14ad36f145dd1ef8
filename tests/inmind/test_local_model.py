"""One InMind task end to end on the real embedded model (local:small)."""
from __future__ import annotations

import asyncio

import pytest

from eval.inmind import build_report, run_inmind
from pipelines.llm import ModelError

pytestmark = pytest.mark.slow
PROFILE = "Reasons from seat order and votes; distrusts players who claim vision early."  # skip Stage 1: one model call in all


def test_role_inference_runs_on_local_small(data_dir, tmp_path):
    from pipelines.llm import get_model
    from pipelines.llm.local import ensure_installed

    ensure_installed("local:small")
    try:
        model = get_model("local:small")
    except ModelError as exc:  # the local backend is not wired into get_model in this checkout
        pytest.skip(str(exc))
    out = tmp_path / "run"
    try:
        summary = asyncio.run(run_inmind(data_dir, out, model=model, tasks="ri", settings=["A"], limit=1, profile=PROFILE))
    finally:
        from eval.moe.runner import close_model

        asyncio.run(close_model(model))
    assert summary.failed == 0 and summary.done == 1
    row = build_report(out)["tasks"]["role_inference"]["settings"][0]
    assert row["instances"] == 1 and 0.0 <= row["strict"]["value"] <= row["relaxed"]["value"] <= 1.0
