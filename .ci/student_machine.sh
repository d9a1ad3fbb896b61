#!/usr/bin/env bash
# A student's machine, as CI's matrix checks it on macOS, Windows and Linux
# (.github/workflows/ci.yml, job "student-machine"; run it here with any Python:
# `bash .ci/student_machine.sh python3.13`):
#   1. cut the student edition from this instructor source;
#   2. set it up with the edition README's command, in a fresh virtual environment;
#   3. `kindling doctor` there;
#   4. overlay the reference solutions (`kindling sync`) and run the tests of
#      Modules 0-2 and of the CUDA tasks 3.3-3.4 (in Numba's CUDA simulator).
# Module 3's CPU kernels (3.1, 3.2) and Module 4 are left to the Linux jobs: their
# Numba compilation takes longer than this check is worth on every system.
set -euo pipefail
cd "$(dirname "$0")/.."
source="$PWD"
python="${1:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The Python of a virtual environment: bin/ on macOS and Linux, Scripts\ on Windows.
venv_python() { if [ -x "$1/bin/python" ]; then echo "$1/bin/python"; else echo "$1/Scripts/python"; fi; }

"$python" -m venv "$work/tools"
tools="$(venv_python "$work/tools")"
"$tools" -m pip install -q -e "$source"
"$tools" -m kindling release "$work/edition"

cd "$work/edition"
"$python" -m venv .venv
py="$(venv_python .venv)"
"$py" -m pip install -q -e ".[dev,app]"   # the edition README's command
"$py" -m kindling doctor
"$py" -m kindling sync --from "$source" --to . >/dev/null
markers="task0_1 or task0_2 or task0_3 or task0_4 or task0_5"
markers="$markers or task1_1 or task1_2 or task1_3 or task1_4 or task1_5 or task1_6 or task1_7"
markers="$markers or task2_1 or task2_2 or task2_3 or task2_4 or task2_5 or task2_6"
markers="$markers or task3_3 or task3_4"
NUMBA_ENABLE_CUDASIM=1 "$py" -m pytest -n 2 -q -m "$markers"
