"""Dependencies: one CBC binary run and reported, no deprecated PuLP API, a single-threaded parent."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from models import solvers
from tests.conftest import ROOT, run_cli


def test_plain_install_has_parquet_and_recent_pandas() -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    plain = project["dependencies"]
    assert any(r.startswith("pyarrow") for r in plain), plain
    assert any(r.replace(" ", "").startswith("pandas>=2.2") for r in plain), plain
    assert any(re.match(r"pulp>=3\.[\d.]+,<4", r.replace(" ", "")) for r in plain), plain


def test_the_same_cbc_binary_is_run_and_reported(tmp_path: Path) -> None:
    real = solvers.cbc_binary()
    assert real is not None and os.access(real, os.X_OK)
    calls = tmp_path / "calls"
    wrapper = tmp_path / "cbc"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    env = {solvers.CBC_ENV: str(wrapper)}
    # -W error: PuLP's deprecated PULP_CBC_CMD would turn the run into an error
    solved = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-m", "bench", "solve",
         "gen:sudoku:9x9:3:clues=30", "--encoding", "ilp-cbc", "--json"],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert solved.returncode == 0, solved.stdout + solved.stderr
    doc = json.loads(solved.stdout)
    assert doc["status"] == "solved" and doc["solver_version"].startswith("cbc 2.")
    lines = calls.read_text().splitlines()
    assert "-quit" in lines  # the version probe ran the wrapper ...
    assert any(".mps" in line for line in lines)  # ... and so did the solve


def test_version_probe_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "cbc"
    broken.write_text("#!/bin/sh\nkill -9 $$\n")
    broken.chmod(0o755)
    monkeypatch.setenv(solvers.CBC_ENV, str(broken))
    solvers.cbc_binary.cache_clear()
    solvers.cbc_version.cache_clear()
    try:
        assert solvers.cbc_version().startswith("cbc unknown (pulp ")
        monkeypatch.setattr(solvers, "cbc_binary", lambda: None)
        solvers.cbc_version.cache_clear()
        assert solvers.cbc_version().startswith("cbc unavailable (pulp ")
    finally:
        monkeypatch.undo()
        solvers.cbc_binary.cache_clear()
        solvers.cbc_version.cache_clear()


def test_the_forking_parent_is_single_threaded() -> None:
    probe = (
        "import os, bench.measure as m, pandas, numpy; m.warm_up();"
        "print(len(os.listdir('/proc/self/task')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1", out.stdout


def test_a_missing_cbc_is_a_clear_error_and_list_still_works(tmp_path: Path) -> None:
    env = {solvers.CBC_ENV: str(tmp_path / "no-such-cbc")}
    listed = run_cli("list", env=env)
    assert listed.returncode == 0, listed.stderr
    solved = run_cli(
        "solve", "gen:sudoku:9x9:3:clues=30", "--encoding", "ilp-cbc", "--json", env=env
    )
    assert solved.returncode == 1, solved.stderr
    doc = json.loads(solved.stdout)
    assert doc["status"] == "error" and "no CBC binary" in doc["error"]
    assert doc["solver_version"].startswith("cbc unavailable")


@pytest.mark.parametrize(
    ("load", "absent"),
    [
        # one encoding: only its own file (and its solver) is imported
        ("registry.get_encoding('numberlink', 'circuit-cpsat')", ("numba", "z3", "pulp")),
        # one puzzle: only its encodings package (Sudoku's own bitset-numba loads numba)
        ("registry.puzzle_encodings('sudoku_x')", ("models.numberlink.encodings", "pysat.card")),
    ],
)
def test_the_registry_imports_only_what_is_asked_for(load: str, absent: tuple[str, ...]) -> None:
    probe = f"import json, sys; from models import registry; {load}; print(json.dumps(list(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    loaded = set(json.loads(out.stdout))
    assert not loaded & set(absent), sorted(loaded & set(absent))


@pytest.mark.parametrize("filters", [(), ("--suite", "quick", "--puzzle", "sudoku_x",
                                           "--encoding", "bool-cpsat", "--no-report")])  # fmt: skip
def test_a_sweep_imports_and_records_only_the_encodings_it_runs(tmp_path: Path, filters) -> None:
    """A Sudoku X sweep of bool-cpsat alone, from a suite of that one run or picked out of
    the shipped `quick` suite by --puzzle and --encoding: its forking parent imports no
    other encoding (bitset-numba's and the Numberlink searches' imports compile numba
    kernels: seconds in a fresh checkout, which every `bench ab` side is, over a minute in
    a fresh install) and its environment records the one it ran."""
    from bench import store

    suite = tmp_path / "one.toml"
    suite.write_text(
        '[suite]\nrepeats = 1\n\n[[cases]]\nname = "one"\npuzzle = "sudoku_x"\n'
        'instances = ["instances/sudoku_x/medium-9x9.txt"]\nencodings = ["bool-cpsat"]\n'
    )
    filters = filters or ("--suite", str(suite))
    path = tmp_path / "bench.sqlite"
    probe = (  # `bench run` as typed, in a process of its own whose modules are then listed
        "import json, sys; from bench import cli; code = cli.main(sys.argv[1:]);"
        "print(json.dumps([code, sorted(sys.modules)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "run", *filters, "--jobs", "1", "--store", str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    code, imported = json.loads(done.stdout.splitlines()[-1])
    assert code == 0, done.stdout
    encodings = {m for m in imported if ".encodings." in m and m.startswith("models.")}
    assert encodings == {"models.sudoku.encodings.bool_cpsat"}, sorted(encodings)
    assert "numba" not in imported
    (env,) = store.environments(path).values()
    assert list(env["solvers"]) == list(env["encoding_hashes"]) == ["sudoku_x/bool-cpsat"], env


def test_a_shipped_suite_runs_from_the_built_wheel(tmp_path: Path) -> None:
    """The wheel carries the instance files its suites name: built from the tracked files,
    installed apart from the checkout, run from an empty folder (30-45 s on 2 loaded cores: a wheel build)."""
    pytest.importorskip("pip", reason="builds the wheel with pip (a uv-made venv has none)")
    source = tmp_path / "source"
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes((ROOT / name).read_bytes())
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), "."],
        cwd=source, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    if built.returncode != 0 and "Could not find a version" in built.stderr:
        pytest.skip("no package index to fetch the build backend from")
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("puzzle_bench-*.whl")
    target = tmp_path / "installed"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}  # the wheel's code before the checkout's
    run = subprocess.run(
        [sys.executable, "-m", "bench", "run", "--suite", "quick", "--puzzle", "sudoku",
         "--no-report", "--store", str(empty / "bench.sqlite")],
        cwd=empty, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert str(target / "bench") in subprocess.run(
        [sys.executable, "-c", "import bench; print(bench.__file__)"],
        cwd=empty, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
