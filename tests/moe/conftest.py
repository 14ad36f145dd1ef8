"""MOE test fixtures: small instances, a scripted model per step, where the shared real data lives."""
from pathlib import Path

import pytest

from pipelines import Check, MoeInstance, Turn

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def shared_data() -> Path | None:
    """The shared real data beside the clone (``../shared/data``), when present."""
    for base in (REPO.parent / "shared" / "data", Path("/work/shared/data")):
        if (base / "crd3").is_dir():
            return base
    return None


@pytest.fixture
def tavern() -> MoeInstance:
    return MoeInstance(
        id="t1",
        ruleset="dnd5e",
        characters=["Jester", "Nott|Nott the Brave", "Caleb"],
        context=[
            Turn(speaker="GM", text="The tavern is loud; a hooded stranger watches you from the corner."),
            Turn(speaker="Jester", text="I wave at him! Hiii!"),
            Turn(speaker="Nott", text="I slip under the table and sneak towards his purse."),
        ],
        answers=[Check(character="Nott", skill="sleight_of_hand")],
    )
