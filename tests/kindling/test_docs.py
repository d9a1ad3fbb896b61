"""The README's commands are the ones CI runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_commands():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(python3 -m venv[^\n]*)\n```", text)


def test_readme_has_exactly_two_copy_paste_commands():
    dashboard, tests = readme_commands()
    assert dashboard.endswith("streamlit run project/app.py")
    assert "pytest" in tests and "streamlit" not in tests


def test_ci_runs_exactly_the_readme_test_command():
    _, tests = readme_commands()
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert f"{tests} || exit 1" in ci_lines
    assert any("black --check" in line for line in ci_lines)
    assert any(line.strip().endswith("flake8") for line in ci_lines)
