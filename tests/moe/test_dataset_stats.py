"""`vgm moe stats`: the paper's Table-1 quantities and figures for an imported data set."""
import json

from typer.testing import CliRunner

from eval.moe.dataset import write_moe
from eval.moe.dataset_stats import count_words, dataset_stats, draw_plots
from eval.moe.importers import import_dicebot
from ui.cli import app

from .conftest import FIXTURES


def test_words_count_han_characters_and_latin_words():
    assert count_words("林语过个侦查 roll Spot Hidden") == 6 + 3


def test_stats_of_an_imported_log_count_what_the_paper_counts():
    instances = import_dicebot(FIXTURES / "dicebot" / "sealdice-standard-log.json").instances
    stats = dataset_stats(instances)
    assert stats["contexts"] == len(instances) and stats["records"] == 1
    group_sizes = [len({a.character for a in i.answers}) for i in instances]
    assert stats["characters_per_check"]["histogram"] == {n: group_sizes.count(n) for n in sorted(set(group_sizes))}
    assert stats["characters_per_check"]["mean"] == sum(group_sizes) / len(group_sizes)
    assert stats["turns"]["mean"] == sum(len(i.context) for i in instances) / len(instances)
    assert stats["checks"]["coc7e"]["listen"] == 2 and stats["check_items"]["coc7e"]["used"] == len(stats["checks"]["coc7e"])
    # a turn shared by two overlapping contexts is counted once in the data set's words
    assert stats["words"] < stats["words_in_contexts"]


def test_stats_command_prints_the_table_and_writes_the_figures(tmp_path):
    data = tmp_path / "seal.jsonl"
    write_moe(import_dicebot(FIXTURES / "dicebot" / "sealdice-standard-log.json").instances, data)
    result = CliRunner().invoke(app, ["moe", "stats", str(data), "--plots", str(tmp_path / "plots")])
    assert result.exit_code == 0, result.output
    assert "turns per context" in result.output and "32.12" in result.output and "1.696" in result.output
    names = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert names == ["context_lengths.png", "fig3_characters_per_check.png", "fig4_checks_coc7e.png"]
    assert all((tmp_path / "plots" / n).read_bytes()[:4] == b"\x89PNG" for n in names)
    as_json = json.loads(CliRunner().invoke(app, ["moe", "stats", str(data), "--json"]).output)
    assert as_json["contexts"] == len(data.read_text(encoding="utf-8").splitlines()) and as_json["paper"]["contexts"] == 1003
