"""Chinese dice-bot logs → MOE: three bots' exports, the paper's excerpt rules, the alias table, bad input."""
import pytest
from typer.testing import CliRunner

import rulesets
from eval.moe.dataset import load_moe, write_moe
from eval.moe.importers import import_crd3, import_dicebot
from eval.moe.importers.dicebot_logs import LogFormatError
from eval.moe.importers.dicebot_rolls import parse_reply
from rulesets import VgmError
from ui.cli import app

from .conftest import FIXTURES

BOTS = FIXTURES / "dicebot"
EXPORTS = ["sealdice-standard-log.json", "dice_session.txt", "log_olivadice.olivadicelog", "log_olivadice.trpglog", "chat_log.txt"]


def answers(instance):
    return sorted((a.character, a.skill) for a in instance.answers)


@pytest.mark.parametrize("name", EXPORTS)
def test_each_bots_export_imports_to_valid_instances_with_every_check_resolved(name, tmp_path):
    report = import_dicebot(BOTS / name)
    assert report.instances
    assert not [r for r in report.dropped if r.startswith("check not in")]
    out = tmp_path / "x.jsonl"
    write_moe(report.instances, out)
    assert [i.id for i in load_moe(out)] == [i.id for i in report.instances]  # strict load: ids, skills, cast
    for instance in report.instances:
        assert not any(t.text.lstrip().startswith((".", "。")) for t in instance.context), "commands give the answer away"


def test_sealdice_group_call_opposed_roll_and_players_mapped_to_characters():
    report = import_dicebot(BOTS / "sealdice-standard-log.json")
    by_answers = {tuple(answers(i)): i for i in report.instances}
    assert (("周彦", "listen"), ("林语", "listen")) in by_answers  # two players rolled 聆听 in a row: one call
    assert (("人影", "dodge"), ("周彦", "fighting_brawl")) in by_answers  # .rav gives both sides
    library = by_answers[(("林语", "library_use"),)]
    assert library.gm_reply == "书房里堆满了发黄的报纸。林语，过个图书馆。"  # the request is not in the context
    assert [t.speaker for t in library.context] == ["GM", "林语", "周彦"]  # nicknames 小林/阿周 became characters
    assert "林语|小林" in library.characters


def test_olivadice_skill_named_only_by_the_command_and_growth_rolls_dropped():
    report = import_dicebot(BOTS / "log_olivadice.olivadicelog")
    assert ("白鸽", "fast_talk") in [a for i in report.instances for a in answers(i)]  # reply said only [60]; .ra话术60 names it
    assert any("growth" in reason for reason in report.dropped)


def test_both_olivadice_exports_give_the_same_labels():
    jsonl = import_dicebot(BOTS / "log_olivadice.olivadicelog").instances
    text = import_dicebot(BOTS / "log_olivadice.trpglog").instances
    assert [answers(i) for i in jsonl] == [answers(i) for i in text]


def test_paper_excerpt_starts_at_the_event_and_drops_what_the_paper_drops():
    paper = import_dicebot(BOTS / "sealdice-standard-log.json", excerpt="paper")
    window = import_dicebot(BOTS / "sealdice-standard-log.json", excerpt="window", context=30)
    psychology = next(i for i in paper.instances if answers(i) == [("林语", "psychology")])
    assert psychology.context[0].text.startswith("第二天一早")  # two hours of silence ended the night's event
    wide = next(i for i in window.instances if answers(i) == [("林语", "psychology")])
    assert len(wide.context) > len(psychology.context)
    assert ("林语", "spot_hidden") not in [a for i in paper.instances for a in answers(i)]  # GM-called perception on arrival
    assert ("陈默", "library_use") not in [a for i in paper.instances for a in answers(i)]  # one character alone
    assert {("林语", "spot_hidden"), ("陈默", "library_use")} <= {a for i in window.instances for a in answers(i)}
    assert any("two characters" in r for r in paper.dropped) and any("perception" in r for r in paper.dropped)


def test_window_excerpt_is_the_last_n_turns():
    report = import_dicebot(BOTS / "sealdice-standard-log.json", excerpt="window", context=2)
    assert all(len(i.context) <= 2 for i in report.instances)


def test_the_issues_example_line_reads_as_a_check():
    roll = parse_reply("<玩家> 进行侦查检定: D100=28/65 困难成功")
    assert (roll.kind, roll.sides, roll.roll, roll.target) == ("check", [("玩家", "侦查")], 28, 65)


def test_every_chinese_name_in_the_coc_pack_resolves_to_its_own_check():
    pack = rulesets.load("coc7e")
    wrong = {(name, check.id, pack.try_resolve(name)) for check in pack.checks.values() for name in check.zh if pack.try_resolve(name) != check.id}
    assert not wrong
    assert [pack.try_resolve(n) for n in ("侦查", "图书馆", "聆听", "心理学", "说服", "闪避", "斗殴", "理智")] == [
        "spot_hidden", "library_use", "listen", "psychology", "persuade", "dodge", "fighting_brawl", "sanity"]


def test_bad_json_line_is_named(tmp_path):
    log = tmp_path / "x.olivadicelog"
    good = (BOTS / "log_olivadice.olivadicelog").read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join([good[0], '{"sender": {"name": "KP"', *good[1:]]), encoding="utf-8")
    with pytest.raises(LogFormatError, match=r"x.olivadicelog:2: malformed JSON"):
        import_dicebot(log)


def test_wrong_format_and_a_log_without_rolls_are_one_line_each(tmp_path):
    with pytest.raises(LogFormatError, match="not a Dice! text log"):
        import_dicebot(BOTS / "sealdice-standard-log.json", format="dice")
    quiet = tmp_path / "quiet.txt"
    quiet.write_text("<KP> 天黑了。\n<林语> 我回家睡觉。\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["moe", "import", "dicebot", str(quiet), "-o", str(tmp_path / "o.jsonl")])
    assert isinstance(result.exception, VgmError)  # `vgm` prints a VgmError as one line, exit 2
    assert "no dice-bot roll results found" in str(result.exception) and "\n" not in str(result.exception)
    assert not (tmp_path / "o.jsonl").exists()


def test_crd3_takes_the_paper_excerpt_on_request_and_keeps_its_window_by_default():
    window = import_crd3(FIXTURES / "crd3_mini.json", context=2, min_context=3)
    paper = import_crd3(FIXTURES / "crd3_mini.json", context=2, min_context=3, excerpt="paper")
    assert all(len(i.context) <= 2 for i in window.instances)
    assert [answers(i) for i in paper.instances] == [answers(i) for i in window.instances]
    assert all(len(p.context) > len(w.context) for p, w in zip(paper.instances, window.instances))  # back to the episode's start
    with pytest.raises(rulesets.VgmError, match="--excerpt 'whole'"):
        import_crd3(FIXTURES / "crd3_mini.json", excerpt="whole")


def test_kp_and_named_gms_are_the_gm(tmp_path):
    dice = import_dicebot(BOTS / "dice_session.txt").instances[0]
    assert dice.context[0].speaker == "GM"  # '主持人' in the Dice! log
    log = tmp_path / "gm.txt"
    log.write_text("<老王> 你们走进一间满是灰尘的图书室。\n<林语> 我翻翻书架。\n<周彦> 我守着门口。\n<林语> .ra 图书馆\n"
                   "<骰娘> <林语>的\"图书馆\"检定结果为: D100=23/70 成功\n", encoding="utf-8")
    without = import_dicebot(log).instances[0]
    named = import_dicebot(log, gm="老王").instances[0]
    assert without.context[0].speaker == "老王" and "老王" in without.characters
    assert named.context[0].speaker == "GM" and "老王" not in named.characters


def test_each_paper_rule_can_be_switched_off_alone():
    everything = import_dicebot(BOTS / "sealdice-standard-log.json")
    no_pair_rule = import_dicebot(BOTS / "sealdice-standard-log.json", excerpt_rules="event,predictable")
    kept = {a for i in no_pair_rule.instances for a in answers(i)} - {a for i in everything.instances for a in answers(i)}
    assert kept == {("陈默", "library_use")}  # only the lone character's check comes back
    with pytest.raises(rulesets.VgmError, match="unknown rule 'whole_event'"):
        import_dicebot(BOTS / "sealdice-standard-log.json", excerpt_rules="whole_event")
