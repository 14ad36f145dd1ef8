"""The packaged MiniLM: offline, normalised, and it knows that searching an altar is like looking for traps on it."""
from __future__ import annotations

import numpy as np

from pipelines.embeddings import HashingEmbedding, MiniLMEmbedding, embed


def test_minilm_vectors_are_unit_length_and_meaningful():
    v = embed(["The rogue searches the altar for a hidden catch.",
               "She looks for a secret compartment on the stone altar.",
               "We order another round of ale at the tavern."])
    assert v.shape == (3, 384)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


def test_batch_padding_does_not_change_a_sentence():
    short = "A bell hums."
    alone = embed([short])[0]
    batched = embed([short, "A much longer sentence about a flooded chapel, a keeper and a missing silver reliquary."])[0]
    assert np.allclose(alone, batched, atol=1e-4)


def test_chromadb_embedding_functions():
    for ef in (MiniLMEmbedding(), HashingEmbedding()):
        out = ef(["one line", "another line"])
        assert len(out) == 2 and abs(np.linalg.norm(out[0]) - 1) < 1e-5
        assert type(ef).build_from_config(ef.get_config()).get_config() == ef.get_config()
