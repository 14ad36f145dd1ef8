"""Property: any case/spacing/hyphen variant of any name of x resolves to x, in every pack."""
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets import UnknownName, available, load

SPELLINGS = []
for _name in available():
    _rs = load(_name)
    _table = _rs.roles if _rs.kind == "social" else _rs.checks
    for _id, _d in _table.items():
        for _s in {_id, _d.name, *_d.aliases, *_d.zh}:
            SPELLINGS.append((_name, _s, _id))

SEPARATORS = ["", "", "", " ", "  ", "-", "_", "\t"]


@st.composite
def variant(draw):
    pack, spelling, ident = draw(st.sampled_from(SPELLINGS))
    out = [draw(st.sampled_from(["", " ", "  "]))]
    for ch in spelling:
        out.append(ch.upper() if draw(st.booleans()) else ch.lower())
        out.append(draw(st.sampled_from(SEPARATORS)))
    return pack, "".join(out), ident


@settings(max_examples=600, deadline=None)
@given(variant())
def test_variant_of_a_name_resolves_to_its_id(case):
    pack, text, ident = case
    assert load(pack).resolve(text) == ident


TRPG_SPELLINGS = [s for s in SPELLINGS if load(s[0]).kind == "trpg"]
TABLE_TALK = ["make a {} check", "roll {}", "give me a {} check, please", "{} check", "can you make a {} roll?",
              "Okay, go ahead and make a DC 15 {} check", "{}检定", "过一个{}"]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(TRPG_SPELLINGS), st.sampled_from(TABLE_TALK))
def test_a_name_wrapped_in_table_talk_still_resolves(case, template):
    pack, spelling, ident = case
    assert load(pack).resolve(template.format(spelling)) == ident


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted({s[0] for s in SPELLINGS})), st.text(max_size=20))
def test_any_text_resolves_to_a_real_id_or_fails_in_one_line(pack, text):
    rs = load(pack)
    try:
        ident = rs.resolve(text)
    except UnknownName as exc:
        assert "\n" not in str(exc)
    else:
        known = rs.roles if rs.kind == "social" else rs.checks
        assert ident in known or ident.split(":")[0] in rs.families
