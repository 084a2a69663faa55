"""The wheel on its own (issue #92): built from the checkout, installed into a fresh environment, it runs the
README's wheel line — a ``--no-llm`` card of the example CRS it ships — in a folder outside the checkout.

The fresh environment holds the wheel alone; its dependencies come from the test's environment through a
path entry (installing torch and the rest again would take minutes and the network), which does not run the
checkout's editable finder: crseval is imported from the wheel, which the test checks."""

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def readme_wheel_line() -> list[str]:
    """The README's command for a wheel install (its first code block names it)."""
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    (line,) = [x for x in block.group(1).splitlines() if "crseval.data.sample" in x]
    return line.split("#")[0].split()


def test_the_wheel_runs_the_readmes_card_outside_the_checkout(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w"]
        + [str(wheels), str(ROOT)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = wheels.glob("crseval-*.whl")
    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True)
    site = next((fresh / "lib").glob("python3*/site-packages"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
    )
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    command = readme_wheel_line()
    assert command[:2] == ["crseval", "evaluate-crs"] and "--no-llm" in command
    python = str(fresh / "bin" / "python")
    ran = subprocess.run(
        [
            python,
            "-c",
            "import sys; from crseval.cli.main import main; sys.argv[0] = 'crseval'; main()",
        ]
        + command[1:]
        + ["--sessions", "10", "--turns", "6", "--n-boot", "100", "--format", "json"],
        cwd=work,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert '"signature"' in ran.stdout and "my_crs" in ran.stdout
    assert (work / "runs" / "card-my_crs" / "report.html").is_file()
    where = subprocess.run(
        [python, "-c", "import crseval; print(crseval.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip().startswith(str(site)), (
        where
    )  # the wheel's crseval, not the checkout's
