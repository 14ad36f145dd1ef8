"""Repeated runs of the same comparison, and the spread between them.

Two runs of one model on the same data move (issue 42 saw TBS SF 10.0 in one ``--quick`` and 0.0 in
the next, TBS+zcot CF 45.5 against 57.5): sampling at a temperature, and a server's batching at any.
A bootstrap CI over instances does not show that; the spread over repeated runs does. Each sample is
an ordinary run folder, ``<out>/sample-<k>/<pipeline>/``, run with ``temperature`` and seed
``seed + k`` (the seed is part of the response-cache key, so samples never answer from each other's
cache, and rerunning the same command resumes each sample exactly).
"""
from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

from rulesets import VgmError

from .report import build_report

METRICS = ("cf", "sf", "cp", "cr", "sp", "sr")


class SamplesError(VgmError):
    """A ``--samples`` request that cannot be run as given."""


def check_samples(samples: int, temperature: float) -> None:
    if samples < 1:
        raise SamplesError(f"--samples {samples}: give at least 1 run")
    if not 0.0 <= temperature <= 2.0:
        raise SamplesError(f"--temperature {temperature}: give a value from 0 to 2")


def sample_folders(out: str | Path, samples: int) -> list[Path]:
    """``out`` itself for one sample (so a single run keeps its old layout), else ``out/sample-<k>``."""
    out = Path(out)
    return [out] if samples == 1 else [out / f"sample-{k}" for k in range(samples)]


def sample_options(options: dict[str, Any] | None, k: int, *, temperature: float, seed: int) -> dict[str, Any]:
    """Step options of sample ``k``: the temperature, and seed ``seed + k``."""
    return {**(options or {}), "temperature": temperature, "seed": seed + k}


def t_interval(values: list[float]) -> tuple[float, float]:
    """95% t interval of the mean over samples ((nan, nan) below two samples)."""
    if len(values) < 2:
        return math.nan, math.nan
    from scipy import stats  # lazy: scipy is only needed for repeated runs

    mean = statistics.fmean(values)
    half = stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean - half, mean + half


def spread(values: list[float]) -> dict[str, Any]:
    """Mean, standard deviation, min, max and the 95% t interval of one metric over samples."""
    low, high = t_interval(values)
    return {"mean": statistics.fmean(values), "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
            "min": min(values), "max": max(values), "ci": [low, high], "values": values}


def summarise_samples(folders: list[Path], *, metric: str = "paper", B: int = 1000) -> dict[str, dict[str, Any]]:
    """pipeline → {metric → spread over samples, n, samples}; each sample's table rebuilt from its run folders."""
    per: dict[str, dict[str, list[float]]] = {}
    sizes: dict[str, int] = {}
    for folder in folders:
        report = build_report([folder], baseline=None, metric=metric, B=B)
        for row in report.rows:
            name = row.pipeline.split(" (")[0]
            for key in METRICS:
                value = row.metrics.get(key, {}).get("value") if isinstance(row.metrics.get(key), dict) else None
                if value is not None and value == value:
                    per.setdefault(name, {}).setdefault(key, []).append(value)
            sizes[name] = row.metrics.get("n", 0)
    return {name: {**{k: spread(v) for k, v in values.items()}, "n": sizes[name], "samples": len(values.get("cf", []))}
            for name, values in per.items()}


def spread_cell(s: dict[str, Any] | None, scale: float = 100.0) -> str:
    """``45.5 ± 6.1 [38.2, 52.8]`` (mean ± sd [95% t interval]) in points; one sample prints its value."""
    if not s:
        return "-"
    if len(s["values"]) < 2:
        return f"{scale * s['mean']:.1f}"
    low, high = s["ci"]
    return f"{scale * s['mean']:.1f} ± {scale * s['sd']:.1f} [{scale * low:.1f}, {scale * high:.1f}]"


def compare_samples(pipelines: list[str], data: str | Path, out: str | Path, *, samples: int, temperature: float = 0.0,
                    seed: int | None = None, options: dict[str, Any] | None = None, **kwargs: Any) -> list[Path]:
    """Run ``compare_moe`` ``samples`` times (sample k: ``temperature``, seed ``seed + k``); returns the sample folders.

    One sample with no temperature or seed given is exactly ``compare_moe`` (same folder, same cache keys).
    """
    from .runner import compare_moe  # runner imports report; imported here so ``samples`` stays importable alone

    check_samples(samples, temperature)
    folders = sample_folders(out, samples)
    for k, folder in enumerate(folders):
        plain = samples == 1 and temperature == 0.0 and seed is None
        opts = options if plain else sample_options(options, k, temperature=temperature, seed=seed or 0)
        compare_moe(pipelines, data, folder, options=opts, **kwargs)
    return folders


def samples_markdown(summary: dict[str, dict[str, Any]]) -> str:
    """The spread table: per pipeline, CF and SF as mean ± sd [95% t interval] over samples, and the range."""
    lines = ["| pipeline | n | samples | CF mean ± sd [95% CI] | CF min–max | SF mean ± sd [95% CI] | SF min–max |", "|---|---|---|---|---|---|---|"]
    for name, s in summary.items():
        rng = lambda x: f"{100 * x['min']:.1f}–{100 * x['max']:.1f}" if x else "-"  # noqa: E731
        lines.append(f"| {name} | {s['n']} | {s['samples']} | {spread_cell(s.get('cf'))} | {rng(s.get('cf'))} | {spread_cell(s.get('sf'))} | {rng(s.get('sf'))} |")
    return "\n".join(lines)
