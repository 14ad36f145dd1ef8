"""Probe sets load from YAML; every mistake a user can make is one error at load time naming the probe."""
import pytest

from pipelines.probes import ProbeSpecError, builtin_sets, load_probe_set, parse_probe_set, render_question


def _set(*probes):
    return {"name": "t", "probes": list(probes)}


def test_builtin_default_and_cheap_sets_load():
    assert {"default", "cheap"} <= set(builtin_sets())
    default = load_probe_set("default")
    assert default.ids() == ["role_assessment", "role_beliefs", "suspicion_ranking", "social_map", "planned_action", "personality"]
    assert load_probe_set("cheap").ids() == ["suspicion_ranking"]
    # social_map chains this step's role assessment, which runs before it
    assert ("prev", "role_assessment") in default.probes[3].chains()


def test_unknown_placeholder_names_the_probe():
    with pytest.raises(ProbeSpecError, match=r"probe 'b' uses unknown placeholder \{colour\}"):
        parse_probe_set(_set({"id": "a", "question": "hi {player}"}, {"id": "b", "question": "your {colour}?"}))


def test_chain_to_a_later_probe_is_an_error_naming_both():
    with pytest.raises(ProbeSpecError, match=r"probe 'a' uses \{prev_b\} but 'b' runs later"):
        parse_probe_set(_set({"id": "a", "question": "{prev_b}"}, {"id": "b", "question": "x"}))


def test_chain_to_itself_with_prev_is_an_error_but_last_is_fine():
    with pytest.raises(ProbeSpecError, match="at the same time"):
        parse_probe_set(_set({"id": "a", "question": "{prev_a}"}))
    ok = parse_probe_set(_set({"id": "a", "question": "before you said {last_a}; later {last_b}"}, {"id": "b", "question": "x"}))
    assert ok.ids() == ["a", "b"]


def test_chain_to_unknown_probe_lists_known_ids():
    with pytest.raises(ProbeSpecError, match=r"no probe has id 'nope'; known ids: a"):
        parse_probe_set(_set({"id": "a", "question": "{last_nope}"}))


def test_bad_keys_and_values_name_probe_and_key():
    with pytest.raises(ProbeSpecError, match=r"probe 'a', key 'when"):
        parse_probe_set(_set({"id": "a", "question": "x", "when": "sometimes"}))
    with pytest.raises(ProbeSpecError, match=r"probe 'a', key 'answer'.*unknown answer shape"):
        parse_probe_set(_set({"id": "a", "question": "x", "answer": "poem"}))
    with pytest.raises(ProbeSpecError, match=r"probe 'a', key 'colour'"):
        parse_probe_set(_set({"id": "a", "question": "x", "colour": 1}))
    with pytest.raises(ProbeSpecError, match="appears twice"):
        parse_probe_set(_set({"id": "a", "question": "x"}, {"id": "a", "question": "y"}))


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("probes:\n  - id: a\n    question: [unclosed\n", encoding="utf-8")
    with pytest.raises(ProbeSpecError, match=r"p\.yaml:\d+: malformed YAML"):
        load_probe_set(f)
    with pytest.raises(ProbeSpecError, match="not found"):
        load_probe_set(tmp_path / "missing.yaml")


def test_json_examples_in_questions_are_not_placeholders():
    s = parse_probe_set(_set({"id": "a", "question": 'Answer like {"player": "X", "score": 1} for {players}'}))
    text = render_question(s.probes[0].question, {"players": "Alex, Blair"})
    assert text == 'Answer like {"player": "X", "score": 1} for Alex, Blair'


def test_missing_values_read_na():
    assert render_question("was: {last_a}", {}) == "was: N/A"


def test_instructions_may_use_only_what_stays_the_same_for_a_seat_all_game():
    ok = parse_probe_set(_set({"id": "a", "instructions": "Private, {player} ({role}).", "question": "Now ({players}), {last_a}"}))
    assert ok.probes[0].instructions == "Private, {player} ({role})." and ("last", "a") in ok.probes[0].chains()
    for name in ("players", "round", "phase", "last_a"):
        with pytest.raises(ProbeSpecError, match=rf"probe 'a' uses \{{{name}\}} in its instructions.*move \{{{name}\}} to the question"):
            parse_probe_set(_set({"id": "a", "instructions": f"about {{{name}}}", "question": "q"}))


def test_the_cheap_set_keeps_its_fixed_wording_in_instructions_and_asks_one_short_line():
    (probe,) = load_probe_set("cheap").probes
    assert "0 = surely innocent" in probe.instructions and "JSON only" in probe.instructions
    assert probe.question.strip() == "Private note now ({players})."
