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


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=20))
def test_resolution_never_crashes_and_never_guesses_silently(text):
    rs = load("dnd5e")
    try:
        ident = rs.resolve(text)
    except UnknownName as exc:
        assert "\n" not in str(exc)
    else:
        assert ident in rs.checks or ident.startswith("tool:")
