"""Other provers of uniqueness beside the backbone proof: one-shot CaDiCaL, Kissat, clingo.

    python docs/experiments/other_provers.py [--shapes 2x3,3x2] [--onehot] [--seconds 300]
        [--conflicts 5e6] [--kissat PATH] [--asp] COVER.sol.json...

For each shipped cover, the question "does a full cover lack some planted edge?":

* ``backbone``: ``winding_prove.prove_unique`` as the generator runs it (incremental
  CaDiCaL, the planted edges one by one), with ``--shapes``' window clauses;
* ``cadical``: the same CNF plus the clause "some planted edge is unused", solved once
  (CaDiCaL 1.9.5 through PySAT, not incremental: nothing is frozen for assumptions);
* ``--onehot``: the one-shot runs with one-hot colours (ladder) instead of binary ones;
* ``kissat``: that CNF in DIMACS, given to a Kissat binary (``--kissat``; the
  ``passagemath-kissat`` wheel carries one under ``sage_wheels/bin/kissat``);
* ``asp`` (``--asp``, needs ``pip install clingo``): a model whose colours are defined by
  reachability from the ends, so clingo's unfounded-set check refutes any cell that no
  end of its colour can reach (the global reasoning CDCL on the colour clauses lacks);
  the planted edges asked one by one under assumptions, as in the backbone proof.

A model of the one-shot CNF with detached cycles would need the backbone proof's cut
loop; on the boards measured every answer was unsatisfiable. Results in
``docs/experiments/numberlink-frontier.md``, "Other provers".
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT), str(Path(__file__).resolve().parent)]

import lexmin_prover  # noqa: E402
import winding_prove  # noqa: E402
from backbone_schedules import onehot_cnf  # noqa: E402
from pysat.solvers import Solver  # noqa: E402
from winding_lexmin import lexmin_clauses, parse_shapes  # noqa: E402

from models.numberlink.encodings._common import grid_of  # noqa: E402

ASP_MODEL = r"""
{ use(X,Y) } :- edge(X,Y).
u(X,Y) :- use(X,Y).  u(Y,X) :- use(X,Y).
:- end(X,_), not 1 { u(X,Y) : adj(X,Y) } 1.
:- cell(X), not end(X,_), not 2 { u(X,Y) : adj(X,Y) } 2.
col(X,K) :- end(X,K).
col(Y,K) :- col(X,K), u(X,Y).
:- cell(X), not col(X,_).
:- col(X,K1), col(X,K2), K1 < K2.
"""


def question_cnf(board, paths, shapes, onehot: bool = False):
    """The backbone proof's CNF with "some planted edge is unused"; the planted edges in
    the proof's order (cell-number pairs)."""
    grid = grid_of(board)
    e, cnf, _ = onehot_cnf(grid, "ladder") if onehot else winding_prove.degree_cnf(grid)
    index = {ab: i for i, ab in enumerate(grid.edges)}
    order = winding_prove.planted_edges(board, paths, index)
    if shapes:
        cnf = cnf + lexmin_clauses(grid, e, shapes)
    return [*cnf, [-e[i] for i in order]], [grid.edges[i] for i in order]


def one_shot_cadical(cnf, conflicts: int) -> str:
    began = time.monotonic()
    with Solver(name="cadical195", bootstrap_with=cnf) as sat:
        sat.conf_budget(conflicts)
        answer = sat.solve_limited()
        conflicts = sat.accum_stats().get("conflicts", 0)
    verdict = {False: "unique", True: "model", None: "undecided"}[answer]
    return f"{verdict}, {time.monotonic() - began:.1f} s, {conflicts} conflicts"


def kissat(binary: str, cnf, seconds: float) -> str:
    nvars = max(abs(lit) for clause in cnf for lit in clause)
    with tempfile.NamedTemporaryFile("w", suffix=".cnf") as dimacs:
        dimacs.write(f"p cnf {nvars} {len(cnf)}\n")
        dimacs.writelines(" ".join(map(str, c)) + " 0\n" for c in cnf)
        dimacs.flush()
        began = time.monotonic()
        run = subprocess.run(
            [binary, f"--time={int(seconds)}", dimacs.name], capture_output=True, text=True
        )
    conflicts = next(
        (ln.split()[2] for ln in run.stdout.splitlines() if ln.startswith("c conflicts:")), "?"
    )
    verdict = {20: "unique", 10: "model"}.get(run.returncode, "undecided")
    return f"{verdict}, {time.monotonic() - began:.1f} s, {conflicts} conflicts"


def asp_backbone(board, planted: list[tuple[int, int]], paths, seconds: float) -> str:
    """The planted edges one by one under assumptions, budgets x4 after a pass with no
    proof, as ``prove_unique`` does; "undecided" past ``seconds``."""
    import clingo

    cols = board.cols
    facts = []
    for r, c in itertools.product(range(board.rows), range(cols)):
        v = r * cols + c
        facts.append(f"cell({v}).")
        for w in ([v + 1] if c + 1 < cols else []) + ([v + cols] if r + 1 < board.rows else []):
            facts.append(f"edge({v},{w}). adj({v},{w}). adj({w},{v}).")
    for k, p in enumerate(paths):
        facts.append(f"end({p[0][0] * cols + p[0][1]},{k}). end({p[-1][0] * cols + p[-1][1]},{k}).")
    began = time.monotonic()
    ctl = clingo.Control(["--models=1"])
    ctl.add("base", [], ASP_MODEL + "\n".join(facts))
    ctl.ground([("base", [])])
    atoms = ctl.symbolic_atoms
    lit = {
        ab: atoms[clingo.Function("use", [clingo.Number(x) for x in ab])].literal for ab in planted
    }
    order, proved, budget = list(planted), [], 20
    while order:
        ctl.configuration.solve.solve_limit = str(budget)
        left = []
        for ab in order:
            if time.monotonic() - began > seconds:
                return f"undecided, {time.monotonic() - began:.1f} s, {len(proved)} edges proved"
            answer = ctl.solve(assumptions=[-lit[ab]] + [lit[x] for x in proved])
            if answer.satisfiable:
                return f"model, {time.monotonic() - began:.1f} s"
            (proved if answer.unsatisfiable else left).append(ab)
        if len(left) == len(order):
            budget *= 4
        order = left
    return f"unique, {time.monotonic() - began:.1f} s"


@contextlib.contextmanager
def counting_models():
    """Count the models the backbone proof's SAT calls return (each one is another cover
    or a relaxed cover with detached cycles, cut and asked again)."""
    models = [0]
    solve = winding_prove.solve_sat_conflicts

    def counted(sat, budget, assume=()):
        answer = solve(sat, budget, assume)
        models[0] += answer is True
        return answer

    winding_prove.solve_sat_conflicts = counted
    try:
        yield models
    finally:
        winding_prove.solve_sat_conflicts = solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("covers", nargs="+", type=Path)
    parser.add_argument("--shapes", default="")
    parser.add_argument("--seconds", type=float, default=300.0, help="Kissat's and clingo's")
    parser.add_argument("--conflicts", type=float, default=5e6, help="CaDiCaL's, each run")
    parser.add_argument("--kissat", help="path of a Kissat binary")
    parser.add_argument("--asp", action="store_true")
    parser.add_argument("--onehot", action="store_true", help="one-hot colours, one-shot runs")
    args = parser.parse_args()
    shapes = parse_shapes(args.shapes) if args.shapes else ()
    for path in args.covers:
        board, paths = lexmin_prover._load(path)
        name = f"{path.name} ({board.rows * board.cols / len(paths):.1f} cells/pair)"
        with counting_models() as models:
            verdict, secs, _, spent = lexmin_prover.prove(
                board,
                paths,
                shapes,
                total_conflicts=int(args.conflicts),
                max_conflicts=int(args.conflicts),
            )
        print(f"{name} backbone: {verdict}, {secs:.1f} s, {spent} conflicts, {models[0]} models")
        cnf, planted = question_cnf(board, paths, shapes, args.onehot)
        print(f"{name} cadical: {one_shot_cadical(cnf, int(args.conflicts))}", flush=True)
        if args.kissat:
            print(f"{name} kissat: {kissat(args.kissat, cnf, args.seconds)}", flush=True)
        if args.asp:
            print(f"{name} asp: {asp_backbone(board, planted, paths, args.seconds)}", flush=True)


if __name__ == "__main__":
    main()
