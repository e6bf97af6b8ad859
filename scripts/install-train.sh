#!/bin/sh
# The trainer integrations' heavy packages, in the project's virtual environment, for
# examples/grpo.py and its test: the CPU build of torch (a wheel in /opt/wheels where the
# machine has one, else PyTorch's CPU index: PyPI's torch is a CUDA build of several GB), then
# transformers, trl and accelerate, which take the torch already there. Quick when present.
set -eu
venv=${1:-.venv}
python=$venv/bin/python
if "$python" -c "import torch, transformers, trl, accelerate" 2>/dev/null; then
    exit 0
fi
uv="$venv/bin/uv"
wheel=$(ls /opt/wheels/torch-2.13.0+cpu-cp311-*.whl 2>/dev/null | head -n 1 || true)
if [ -n "$wheel" ]; then
    "$uv" pip install --quiet --python "$python" "$wheel"
else
    "$uv" pip install --quiet --python "$python" --index-url https://download.pytorch.org/whl/cpu "torch==2.13.0"
fi
"$uv" pip install --quiet --python "$python" "transformers>=4.50" "trl>=0.20" "accelerate>=1.0"
