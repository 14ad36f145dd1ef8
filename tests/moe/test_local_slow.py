"""The real local model (local:small) answers the template and TBS pipelines with usable checks."""
import pytest

from eval.moe import load_moe
from pipelines import load_pipeline

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def small_model():
    import os

    from pipelines.llm import ModelError, get_model
    from pipelines.llm.local import ensure_installed

    try:
        ensure_installed("local:small")
    except ModelError as exc:
        pytest.skip(f"local:small not installed: {exc}")
    # our own server: another process's requests on a shared one could evict the cached prefix
    old = os.environ.get("VGM_SHARE_SERVER")
    os.environ["VGM_SHARE_SERVER"] = "0"
    try:
        yield get_model("local:small", cache=False)
    finally:
        if old is None:
            os.environ.pop("VGM_SHARE_SERVER", None)
        else:
            os.environ["VGM_SHARE_SERVER"] = old


async def test_template_and_tbs_on_two_sample_instances(small_model):
    import rulesets

    instances = load_moe("sample", limit=2)
    try:
        for instance in instances:
            pack = rulesets.load(instance.ruleset)
            table = {c.split("|")[0] for c in instance.characters}
            for name in ("template", "tbs"):
                result = await load_pipeline(name).run(instance, small_model)
                assert result.error is None, result.error
                assert result.parse_ok, [s.raw for s in result.steps]
                assert result.checks, f"{name} gave no check on {instance.id}"
                for check in result.checks:
                    assert check.character in table and check.skill in pack.checks
                if name == "tbs":
                    # steps 2 and 3 extend step 1's conversation: the server reuses that prefix
                    assert sum(s.usage.cached_tokens for s in result.steps[1:]) > 0
    finally:
        await small_model.aclose()
