# trustaudit — the two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo test bench bench-peer bench-classifier families lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,ray]'
	$(PY) -m trustaudit.embed prepare --no-accurate  # distil the static model once, offline (~30 s)
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/trustaudit audit fixtures/corpus/pages fixtures/corpus/extra.jsonl --out runs/demo --fresh \
	  --allowlist fixtures/corpus/allowlist.txt --blocklist fixtures/corpus/blocklist.txt \
	  --domain-info fixtures/corpus/domain_info.csv --labels fixtures/corpus/labels.csv --now 2026-11-01
	@echo "report: runs/demo/reports/ (summary.json, quarantine.md, report.html)"

test: $(STAMP)
	sh scripts/ensure-chromium.sh
	$(PY) -m pytest -q

# the peer for `make bench`: datatrove in its own venv (its pins clash with ours)
.venv-peer/.installed:
	$(PYTHON) -m venv .venv-peer
	.venv-peer/bin/python -m pip install -q 'datatrove[processing]==0.10.1' faust-cchardet==3.2.0 \
	  python-magic==0.4.27 lxml_html_clean==0.4.6 spacy==3.8.18 warcio==1.8.1
	touch $@

bench-peer: .venv-peer/.installed

bench: $(STAMP) bench-peer
	$(PY) bench/run.py

# issue 2's optional classifier: the one offline candidate, measured against the rules (never a dependency)
.bench-clf/.installed:
	$(PYTHON) -m pip install -q --target .bench-clf securevector-guardian-model==1.4.0
	touch $@

bench-classifier: $(STAMP) .bench-clf/.installed
	PYTHONPATH=.bench-clf $(PY) bench/classifier_eval.py

# issue 13's registry families with heavy dependencies: their pinned wheels, read as zips by
# bench/injection_families_extra.py (never installed); without them those families are absent
families: $(STAMP)
	$(PY) bench/injection_families_extra.py --download

lint: $(STAMP)
	$(VENV)/bin/ruff check trustaudit tests bench
	$(VENV)/bin/ruff format --check trustaudit tests bench
	$(VENV)/bin/mypy trustaudit

clean:
	rm -rf $(VENV) .venv-peer runs .pytest_cache
