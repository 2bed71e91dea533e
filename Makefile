# trustaudit — the two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo test bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
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

bench: $(STAMP)
	$(PY) bench/run.py

lint: $(STAMP)
	$(VENV)/bin/ruff check trustaudit tests bench
	$(VENV)/bin/ruff format --check trustaudit tests bench
	$(VENV)/bin/mypy trustaudit

clean:
	rm -rf $(VENV) runs .pytest_cache
