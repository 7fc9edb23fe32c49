# The two commands of the README: `make demo` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# llama.cpp is compiled from source by pip. Portable CPU flags: a build tuned to the build
# machine (AVX-512/AMX) crashed at inference on this project's machines.
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF

.PHONY: setup demo test lint format clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet -e '.[local,dev]'
	touch $@

demo: setup
	$(BIN)/polistemics run

# Each file on one worker, costliest files first (tests/file_costs.py), in that order.
test: setup
	$(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports --no-cache

format: setup
	$(BIN)/ruff format src tests benchmarks
	$(BIN)/ruff check --fix src tests benchmarks

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
