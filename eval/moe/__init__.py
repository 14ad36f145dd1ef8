"""MOE evaluation (Tachikuma 3.2): datasets, importers, the CF/SF metrics, the resumable runner, reports."""
from .dataset import SAMPLE, DatasetError, data_path, load_moe, write_moe
from .metrics import InstanceScore, MoeScore, compare_scores, score_instance, score_moe

__all__ = [
    "SAMPLE", "DatasetError", "data_path", "load_moe", "write_moe",
    "InstanceScore", "MoeScore", "compare_scores", "score_instance", "score_moe",
]
