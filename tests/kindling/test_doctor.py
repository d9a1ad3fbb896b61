"""``kindling doctor`` reports the environment."""

from kindling.cli import main as kindling
from kindling.doctor import checks, main
from kindling.registry import load_registry


def test_doctor_rows_cover_python_packages_and_cuda(tmp_path):
    rows = {what: (ok, detail) for what, ok, detail in checks(tmp_path)}
    assert rows["python >= 3.10"][0]
    assert rows["numpy"][0] and rows["numba"][0]
    assert "simulator" in rows["cuda"][1] or "GPU is present" in rows["cuda"][1]
    assert "instructor source" in rows["checkout"][1]
    (tmp_path / ".kindling-manifest.json").write_text("{}")
    rows = {what: (ok, detail) for what, ok, detail in checks(tmp_path)}
    assert "student edition" in rows["checkout"][1]


def test_doctor_exit_status(capsys):
    assert main() == 0
    assert "registry" in capsys.readouterr().out


def test_cli_runs_doctor_and_lists_tasks(capsys):
    assert kindling(["doctor"]) == 0
    assert kindling(["tasks"]) == 0
    assert f"{len(load_registry())} tasks" in capsys.readouterr().out
