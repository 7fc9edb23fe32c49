#!/usr/bin/env bash
# capture.sh SRC_TREE OUT_DIR: the outputs of a source tree that a refactor must leave identical.
#
# The Dutch release's report tables and `score --json` (from ../shared), and a small study on the
# test server (demo election, three judges, ablations, stance coder, prior probe, repeat judging):
# its scores, exports, JSONL files, run.json, report tables, `score --json` and both dry runs.
# Compare two captures with compare.py. The server listens on a fixed port (18765) because call
# keys include the endpoint URL: run one capture at a time.
#
#     bash benchmarks/golden/capture.sh /path/to/old-checkout /tmp/golden-old
#     bash benchmarks/golden/capture.sh . /tmp/golden-new
#     python benchmarks/golden/compare.py /tmp/golden-old /tmp/golden-new
set -euo pipefail
SRC=$(cd "$1" && pwd)
rm -rf "$2"; mkdir -p "$2"; OUT=$(cd "$2" && pwd)
PY=${PYTHON:-$(cd "$(dirname "$0")/../.." && pwd)/.venv/bin/python}
export PYTHONPATH=$SRC/src POLISTEMICS_QUIET=1
SHARED=${POLISTEMICS_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
REL=$SHARED/reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1
cd "$OUT"
# 1. the Dutch release: report tables and score --json
$PY -m polistemics report "$REL" --out "$OUT/release-report" --figure-format svg > release-report.log 2>&1
$PY -m polistemics score "$REL" --json > release-score.json 2> release-score.err
# 2. a test-server study on the demo election
$PY -m polistemics.testing.server --port 18765 > server.log 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q READY server.log && break; sleep 0.2; done
BASE=$(sed -n 's/^READY //p' server.log)
cat > models.toml <<TOML
[models.target]
base_url = "$BASE"
model = "fake-model"
temperature = 0.0
max_concurrency = 8
[models.judge-a]
base_url = "$BASE"
model = "fake-model-a"
temperature = 0.0
max_concurrency = 8
[models.judge-b]
base_url = "$BASE"
model = "fake-model-b"
temperature = 0.0
max_concurrency = 8
[models.judge-c]
base_url = "$BASE"
model = "fake-model-c"
temperature = 0.0
max_concurrency = 8
[models.writer]
base_url = "$BASE"
model = "fake-model"
temperature = 0.3
max_concurrency = 8
TOML
cat > study.toml <<TOML
name = "golden"
targets = ["target"]
judges = ["judge-a", "judge-b", "judge-c"]
standardiser = "writer"
vague_generator = "writer"
vague_auditor = "judge-a"
ablations = ["anon", "en"]
embeddings = "tfidf"
stance_coder = "judge-a"
prior_probe = true
judge_repeats = { judges = "all", items = 0.25, repeats = 1 }
models_file = "$OUT/models.toml"
output_dir = "$OUT/run"
[[elections]]
source = "demo"
scope = "demo"
TOML
$PY -m polistemics run study.toml --dry-run > dry-fresh.txt 2>&1 || true
$PY -m polistemics run study.toml -q --figure-format svg > run.log 2>&1
$PY -m polistemics run study.toml --dry-run > dry-finished.txt 2>&1 || true
$PY -m polistemics score run --json > run-score.json 2> run-score.err
# digests, without volatile files (times, durations, store, logs)
cd "$OUT"
find run release-report -type f \( -name '*.csv' -o -name '*.jsonl' -o -name 'summary.json' \) -print0 \
  | sort -z | xargs -0 sha256sum > digests.txt
sha256sum release-score.json run-score.json >> digests.txt
echo "captured $(wc -l < digests.txt) digests in $OUT/digests.txt"
