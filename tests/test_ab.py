"""A/B in one job, the gate on a pull-request-like diff, and the bisect, on a real git repository.

The fixture copies this project's tree into a throw-away repository and commits three
changes on top: a neutral one (a README line), one that builds ``bool-cpsat``'s model
twice, one that turns CP-SAT's presolve off for ``bool-cpsat`` (a weaker solver
setting). Each side of an A/B is swept by its own code (checked: a side's code is the
repository's, never this checkout's) with a tiny suite of five rounds; the commands are typed as
a user types them (the ``bench`` console script, ``.ci/gate``). The doubled build of two boards is
judged by CPU time: in an A/B its interval is bootstrapped over the rounds of each board, the
boards held fixed (``compare._pooled_ratio``; resampling two boards as well made the lower bound
about the smaller board's ratio, and one noisy board hid the doubling in 2 of 6 runs).

What it costs: a side's sweep of the tiny suite takes about 1.5 s, nearly all of it the child's
start-up (imports, the calibration figure); the solves are some 0.2 s. So the time goes with the
number of sweeps, not with the boards or encodings: ``cnf-sat`` stays in the suite as a control
(its build must not be flagged beside the doubled one, nor its counters beside the weaker
setting) for a few hundredths of a second a sweep. The A/Bs keep the suite's five rounds: now
and then a sweep's builds take about 0.6x their usual CPU time (the shared machine), and a
doubled build whose point estimate falls to the threshold (x1.25) gets no more rounds and
passes as "same". Resampling 80 sweeps measured here, a three-round A/B fell that far about 3
times in 1,000 and a five-round one 4 in 10,000 (one real three-round A/B came to x1.28
[1.16, 1.89]).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import commit_all, git, project_repository

#: an A/B sweeps each side five times (about 17 s), up to 15 when a time verdict is unsure
pytestmark = [pytest.mark.timeout(1200), pytest.mark.serial]  # serial: time verdicts
BENCH = str(Path(sys.executable).with_name("bench"))
SUITE = """
[suite]
repeats = 5
time_limit_s = 20
seeds = [0]
threads = [1]
jobs = 1

[[cases]]
name = "tiny"
puzzle = "sudoku_x"
instances = ["instances/sudoku_x/16x16/fill40-s1.txt", "instances/sudoku_x/16x16/fill40-s2.txt"]
encodings = ["bool-cpsat", "cnf-sat"]
"""
ENCODING = "models/sudoku/encodings/bool_cpsat.py"


def _edit(repo: Path, path: str, old: str, new: str) -> None:
    file = repo / path
    text = file.read_text()
    assert old in text, f"{path} no longer holds {old!r}: update this test's edit"
    file.write_text(text.replace(old, new, 1))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The project's tree plus the tiny suite, then a neutral, a build-twice and a
    weaker-setting commit: (repository, [base, neutral, twice, weaker])."""
    repo = project_repository(tmp_path_factory.mktemp("ab") / "repo", {"tiny.toml": SUITE})
    commits = [git(repo, "rev-parse", "HEAD")]
    with (repo / "README.md").open("a") as readme:
        readme.write("\nA neutral line.\n")
    commits.append(commit_all(repo, "neutral: a README line"))
    _edit(repo, ENCODING, "    def build(self, instance, limits: Limits) -> ModelSize:\n",
          "    def build(self, instance, limits: Limits) -> ModelSize:\n"
          "        self._build(instance, limits)\n"
          "        return self._build(instance, limits)\n\n"
          "    def _build(self, instance, limits: Limits) -> ModelSize:\n")  # fmt: skip
    commits.append(commit_all(repo, "bool-cpsat builds its model twice"))
    _edit(repo, ENCODING, "solve_cpsat(self.model, limits, decode)",
          "solve_cpsat(self.model, limits, decode, cp_model_presolve=False)")  # fmt: skip
    commits.append(commit_all(repo, "bool-cpsat: presolve off"))
    return repo, commits


def _bench(repo: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([BENCH, *args], cwd=repo, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def _ab(repo: Path, base: str, head: str, where: Path) -> tuple[int, dict]:
    done = _bench(repo, "ab", base, head, "--suite", "tiny.toml", "--format", "json", "--all",
                  "--dir", str(where))  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def _regressions(doc: dict) -> list[dict]:
    return [v for v in doc["verdicts"] if v["verdict"] == "regression"]


@pytest.fixture(scope="module")
def measured(repo, tmp_path_factory) -> dict[str, tuple[int, dict, Path]]:
    """The two A/Bs of a change (each commit against the one before it): name -> (exit,
    JSON, --dir). No A/B of the neutral commit: each of these has its own unchanged parts
    (cnf-sat in both, bool-cpsat's build in the second), never flagged (``_unchanged``)."""
    repo, (_, neutral, twice, weaker) = repo
    out = {}
    for name, (a, b) in {"twice": (neutral, twice), "weaker": (twice, weaker)}.items():
        where = tmp_path_factory.mktemp(name)
        out[name] = (*_ab(repo, a, b, where), where)
        if name == "twice" and not _build_flagged(out[name][1]):
            where = tmp_path_factory.mktemp(name)  # once more: see _build_flagged
            out[name] = (*_ab(repo, a, b, where), where)
    return out


def _build_flagged(doc: dict) -> bool:
    """Whether the A/B flagged bool-cpsat's build. On a slow, noisy host (2026-12-06: the
    same sweeps 1.4-2x slower than the days before) the doubled build passed as "same" in
    3 of 4 A/Bs of one hour, far above the rates measured in the module docstring, so the
    build-time verdicts get a second measurement; a doubling that is really gone fails both."""
    return any(v["config"] == "bool-cpsat" and v["aspect"] == "build" for v in _regressions(doc))


def _unchanged(doc: dict, config: str, aspects: tuple[str, ...]) -> set[str]:
    """The verdicts on what the A/B's commit left as it was: each must be "same", or an
    "improvement" by time on a host whose load fell while one side ran (a gate passes it)."""
    found = {
        v["verdict"] for v in doc["verdicts"] if v["config"] == config and v["aspect"] in aspects
    }
    assert found, (config, aspects, doc["verdicts"])
    return found


def test_ab_flags_a_weaker_setting_by_counters_and_nothing_unchanged(repo, measured) -> None:
    _, (_, _, _twice, weaker) = repo
    code, doc, _ = measured["weaker"]
    assert code == 1 and doc["head"] == weaker
    assert doc["same_machine"] and doc["rounds"] in (5, 10, 15)
    flagged = _regressions(doc)
    assert flagged and {v["config"] for v in flagged} == {"bool-cpsat"}
    assert all(v["aspect"] == "solve" and "counter" in v["reason"] for v in flagged), flagged
    assert _unchanged(doc, "cnf-sat", ("build", "solve")) <= {"same", "improvement"}, doc
    assert _unchanged(doc, "bool-cpsat", ("build",)) <= {"same", "improvement"}, doc


def test_ab_names_the_encoding_whose_build_doubled(repo, measured) -> None:
    _, (_, _, twice, _) = repo
    code, doc, _ = measured["twice"]
    assert code == 1 and doc["head"] == twice
    (build,) = _regressions(doc)
    assert (build["config"], build["aspect"]) == ("bool-cpsat", "build"), build
    assert build["ratio"] > 1.5, build
    assert _unchanged(doc, "cnf-sat", ("build", "solve")) <= {"same", "improvement"}, doc


def test_exports_of_the_sides_give_history_and_a_site(repo, measured, tmp_path) -> None:
    """The A/B stores hold sweeps at three commits: exported per commit and machine, read
    back by `bench history --store DIR` and published with the doubled build marked."""
    repo, (_, neutral, twice, weaker) = repo
    history = tmp_path / "history"
    for name, side in (("twice", "base"), ("twice", "head"), ("weaker", "head")):
        store = measured[name][2] / f"{side}.sqlite"
        done = _bench(repo, "export", "--all", "--dir", str(history), "--store", str(store))
        assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in history.rglob("*.json"))
    assert files == sorted(f"{c[:12]}.json" for c in (neutral, twice, weaker))
    done = _bench(repo, "history", "--store", str(history), "--format", "csv")
    assert done.returncode == 0, done.stderr
    table = [line.split(",") for line in done.stdout.splitlines()]
    commits = [row[1] for row in table[1:] if row[0].startswith("sudoku_x/bool-cpsat/")]
    assert commits[:3] == [neutral[:10], twice[:10], weaker[:10]], commits
    assert "deterministic_time" in done.stdout  # the counter is named
    done = _bench(repo, "history", "--store", str(history), "--format", "md")
    assert done.returncode == 0 and "[deterministic_time=" in done.stdout, done.stdout
    site = tmp_path / "site"
    done = _bench(repo, "publish", str(history), "--out", str(site))
    assert done.returncode == 0, done.stderr
    pages = sorted(p.name for p in (site / "cases").glob("*.html"))
    assert len(pages) == 4, pages  # two boards x two encodings
    page = next((site / "cases").glob("sudoku_x_bool-cpsat_*fill40-s1*.html")).read_text()
    # every repeat a sweep of its own: publish holds the boards fixed, as the A/B did
    assert f"<code>{twice[:10]}</code> build: build time x" in page
    assert "counter: deterministic_time" in page and twice[:10] in page and "<svg" in page
    index = (site / "index.html").read_text()
    assert "4 cases over 3 commits" in index
    assert "<td class='reg'>" in index  # the bool-cpsat cases count their regressions


def test_the_gate_runs_ab_against_the_merge_base_of_a_pull_request(repo, tmp_path) -> None:
    """A branch off the neutral commit that builds the model twice: `.ci/gate` with the
    target branch named (as the workflow does on a pull request) flags it, and says what
    it compared in the Markdown it leaves for the job summary."""
    repo, (_, neutral, twice, _) = repo
    clone = tmp_path / "clone"
    git(repo, "worktree", "add", "-q", "-b", "pr", str(clone), twice)
    git(clone, "branch", "-f", "target", neutral)
    env = {**os.environ, "BENCH_GATE_BASE": "target", "BENCH_GATE_SUITE": "tiny.toml",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    for _attempt in range(2):  # once more on a noisy host, as the A/B above (_build_flagged)
        done = subprocess.run([str(clone / ".ci" / "gate")], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        if done.returncode == 1:
            break
    assert done.returncode == 1, done.stdout + done.stderr
    verdicts = (clone / "reports" / "ci" / "verdicts.md").read_text()
    lines = verdicts.splitlines()
    assert lines[2].startswith("gate: FAIL (regression)"), verdicts
    assert lines[4].startswith("**1 regression**"), verdicts
    assert f"compared: base {neutral[:10]}, measured beside it" in verdicts, verdicts
    assert "merge base of target" in verdicts and "same machine" in verdicts
    first_row = next(line for line in verdicts.splitlines() if line.startswith("| **"))
    assert "bool-cpsat" in first_row and "build" in first_row


def test_find_names_the_commit_that_doubled_the_build(repo) -> None:
    """Three probes of 3 rounds each (up to 9 where a time verdict is unsure, which is what
    makes 3 enough): about 35 s on two cores at load 1.5."""
    repo, (base, _, twice, weaker) = repo
    for _attempt in range(2):  # once more on a noisy host, as the A/B above (_build_flagged)
        done = _bench(repo, "find", base, weaker, "--case", "sudoku_x/bool-cpsat/*",
                      "--suite", "tiny.toml", "--encoding", "bool-cpsat", "--rounds", "3",
                      "--quiet", timeout=1100)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        first = done.stdout.splitlines()[0]
        if first.startswith(f"first slower commit: {twice}"):
            break
    assert first == f"first slower commit: {twice} bool-cpsat builds its model twice", first
    assert "bool-cpsat/(build, 2 instances) build: build time x" in done.stdout
    probes = [line for line in done.stdout.splitlines() if line.startswith("  probe: ")]
    assert len(probes) == 3 and probes[-1].startswith(f"  probe: {twice[:10]} SLOWER"), probes
    assert all(" rounds" in line for line in probes), probes


#: on top of a base that builds twice: eight builds in every other sweep of the side, one in
#: the others (a tally file counts them)
TWICE = "        self._build(instance, limits)\n        return self._build(instance, limits)\n"
ALTERNATING = """        from pathlib import Path

        tally = Path(__file__).with_name("builds.tally")
        count = int(tally.read_text()) if tally.exists() else 0
        tally.write_text(str(count + 1))
        for _ in range(7 if count // 2 % 2 == 0 else 0):  # two boards a sweep
            self._build(instance, limits)
        return self._build(instance, limits)
"""


def test_an_unsure_build_verdict_gets_more_rounds_and_is_named(repo, tmp_path) -> None:
    """Against a base that builds twice, a head that builds eight times in every other
    sweep and once in the others: per round x4 or x0.5, so the median ratio (about 2.4)
    is past the threshold while the interval reaches down to about 0.7 (far below it,
    whatever the load: a build 4x slower against the plain one had left the interval at
    [1.26, 4.56] once, at load 3.4), after 2 rounds and after 4. The A/B measures 2 more
    rounds, up to --max-rounds 4, then says the verdict is still unsure."""
    repo, (_, _, twice, _) = repo
    tree = tmp_path / "alternating"
    git(repo, "worktree", "add", "-q", "-b", "alternating", str(tree), twice)
    _edit(tree, ENCODING, TWICE, ALTERNATING)
    alternating = commit_all(tree, "bool-cpsat: every other sweep builds eight times, else once")
    done = _bench(repo, "ab", twice, alternating, "--suite", "tiny.toml", "--encoding",
                  "bool-cpsat", "--rounds", "2", "--max-rounds", "4", "--format", "json",
                  "--dir", str(tmp_path / "ab"))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert doc["rounds"] == 4 and len(doc["head_runs"]) == 4, doc["rounds"]
    notes = " | ".join(doc["notes"])
    assert "after 2 rounds 1 unsure verdict (bool-cpsat build x" in notes, notes
    assert ": 2 more rounds" in notes and "still unsure after 4 rounds" in notes, notes
