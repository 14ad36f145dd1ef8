"""The progress of a cluster run: one bar for shards, one per pipeline (or for games / instances).

It is both a MOE ``Reporter`` (``start``/``advance``/``finish`` per pipeline, with the running
CF/SF) and the shard driver's ``Display`` (shards done, running, retried; nodes seen).
"""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ._stream import Display, Item, Shard


class ClusterProgress(Display):
    """Rich bars: ``shards`` first, then one bar per pipeline or unit of work."""

    def __init__(self, console: Console | None = None, transient: bool = False, label: str = "shards") -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.fields[name]:<14}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=console or Console(stderr=True), transient=transient,
        )
        self.tasks: dict[str, Any] = {}
        self.fails: dict[str, int] = {}
        self.nodes: set[str] = set()
        self.retried = 0
        self.finished = 0
        self.total = 0
        self.label = label

    def __enter__(self) -> "ClusterProgress":
        return self  # the bars appear with the first unit of work: an error before it is one line alone

    def __exit__(self, *exc: Any) -> None:
        if "shards" in self.tasks:
            self.progress.stop()

    def _show(self) -> None:
        if "shards" not in self.tasks:
            self.tasks["shards"] = self.progress.add_task("shards", total=None, name=self.label, info="")  # the first row
            self.progress.start()

    # -- instances (the MOE Reporter protocol, and any other unit) -----------------------------
    def start(self, name: str, total: int, done: int) -> None:
        self._show()
        self.fails[name] = 0
        self.tasks[name] = self.progress.add_task(name, total=total, completed=done, name=name, info="")

    def advance(self, name: str, record: dict, running: dict) -> None:
        self.fails[name] += 0 if record.get("parse_ok", True) else 1
        info = (f"CF {100 * running['cf']:5.1f}  SF {100 * running['sf']:5.1f}  errors {running.get('errors', 0)}  "
                f"parse fails {self.fails[name]}") if "cf" in running else ""
        self.progress.update(self.tasks[name], advance=1, info=info)

    def finish(self, name: str) -> None:
        pass

    def count(self, name: str, info: str = "") -> None:
        """One more unit done on bar ``name`` (games, answers)."""
        self.progress.update(self.tasks[name], advance=1, info=info)

    # -- shards (the driver's Display) ---------------------------------------------------------
    def shards_start(self, total: int) -> None:
        self.total = total
        self._show()
        self.progress.update(self.tasks["shards"], total=total, completed=0)
        self._shard_info()

    def shard_done(self, shard: Shard) -> None:
        self.finished += 1
        self.progress.update(self.tasks["shards"], advance=1)
        self._shard_info()

    def shard_retry(self, shard: Shard, reason: str) -> None:
        self.retried += 1
        self.progress.console.print(f"[yellow]retrying[/] shard {shard.name} ({len(shard.remaining())} left): {reason}")
        self._shard_info()

    def item(self, shard: Shard, item: Item) -> None:
        if item.node and item.node not in self.nodes:
            self.nodes.add(item.node)
            self._shard_info()

    def _shard_info(self) -> None:
        parts = [f"{len(self.nodes)} node{'s' if len(self.nodes) != 1 else ''}"]
        if self.retried:
            parts.append(f"retried {self.retried}")
        self.progress.update(self.tasks["shards"], info=", ".join(parts))
