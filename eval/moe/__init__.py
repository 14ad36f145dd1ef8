"""MOE evaluation (Tachikuma 3.2): datasets, importers, the CF/SF metrics, run folders, the resumable runner, reports."""
from .dataset import SAMPLE, DatasetError, data_path, load_moe, write_moe
from .metrics import InstanceScore, MoeScore, compare_scores, score_instance, score_moe
from .run_folder import RunFolder, RunFolderError, find_runs
from .report import CompareReport, Row, build_report, load_row, run_metrics, write_metrics
from .runner import RunError, compare_moe, run_moe, run_pipelines

__all__ = [
    "SAMPLE", "DatasetError", "data_path", "load_moe", "write_moe",
    "InstanceScore", "MoeScore", "compare_scores", "score_instance", "score_moe",
    "RunFolder", "RunFolderError", "find_runs",
    "CompareReport", "Row", "build_report", "load_row", "run_metrics", "write_metrics",
    "RunError", "compare_moe", "run_moe", "run_pipelines",
]
