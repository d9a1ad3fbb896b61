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


def bash_commands(text: str):
    """Every command line of the ``bash`` blocks of a Markdown text (comments and
    continuation lines left out)."""
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                yield line


# A command works as written from a fresh clone only if it names the environment's
# tools: bare ``pytest``, ``kindling`` or ``streamlit`` are whatever PATH finds.
WRITTEN_OUT = re.compile(r"^(python3 -m venv |\.venv/bin/|\. \.venv/bin/activate)")


def test_every_readme_command_works_as_written():
    from kindling_staff.release import STUDENT_README

    for text in ((ROOT / "README.md").read_text(), STUDENT_README.read_text()):
        commands = list(bash_commands(text))
        assert commands
        for command in commands:
            assert WRITTEN_OUT.match(command), command
            for part in command.split("&&")[1:]:
                assert WRITTEN_OUT.match(part.strip()), command


def test_the_dashboard_command_installs_what_the_dashboard_runs():
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    dashboard, _ = readme_commands()
    assert '.venv/bin/pip install -e ".[app]"' in dashboard
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    app = {re.split(r"[<>=;\[ ]", r)[0] for r in extras["app"]}
    # The Progress page runs the course's tests: pytest, and what conftest imports.
    assert {"streamlit", "pytest", "hypothesis"} <= app


def test_every_kindling_option_is_described():
    import argparse

    from kindling.cli import build_parser

    parser = build_parser()
    [commands] = [
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    ]
    for name, command in commands.choices.items():
        for action in command._actions:
            if action.nargs == argparse.REMAINDER:  # parses its own options
                continue
            what = f"kindling {name} {'/'.join(action.option_strings) or action.dest}"
            assert action.help, f"{what} has no description"
            assert "``" not in action.help, f"{what}: raw reST in its help"
        assert "``" not in (command.description or ""), name
