#!/bin/sh
# verl 0.9, for the test that runs assay's reward functions inside verl's own reward loop
# (tests/integrations/test_verl_env.py), in a virtual environment of its own, VENV_DIR
# (.venv-verl from `make verl`): verl 0.9 caps transformers below 5.11, and the project's
# environment keeps the newest for the TRL test. Into it: the CPU build of torch (a wheel in
# /opt/wheels where the machine has one, else PyTorch's CPU index: PyPI's torch is a CUDA build
# of several GB; verl takes any torch, and 2.13 is the one the TRL test runs on), then verl and
# its dependencies, all of them, pinned in verl-requirements.txt beside this script (Ray, Hydra,
# tensordict, transformers...: some 160 packages, about 20 seconds from PyPI, no CUDA package
# once torch is there), then assay, editable, so the test runs the working tree. Quick when
# present and the pins unchanged. UV names the uv to use (default: the project's).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-.venv-verl}
python=$venv/bin/python
uv=${UV:-$repo/.venv/bin/uv}
pins=$repo/scripts/verl-requirements.txt
if cmp -s "$pins" "$venv/.pins" && "$python" -c "import assay" 2>/dev/null; then
    exit 0
fi
"$uv" venv --quiet --allow-existing --python 3.11 --no-python-downloads "$venv"
wheel=$(ls /opt/wheels/torch-2.13.0+cpu-cp311-*.whl 2>/dev/null | head -n 1 || true)
if [ -n "$wheel" ]; then
    "$uv" pip install --quiet --python "$python" "$wheel"
else
    "$uv" pip install --quiet --python "$python" --index-url https://download.pytorch.org/whl/cpu "torch==2.13.0"
fi
"$uv" pip install --quiet --python "$python" -r "$pins"
"$uv" pip install --quiet --python "$python" --no-deps -e "$repo"
cp "$pins" "$venv/.pins"
