"""The backbone proof with and without parity clauses on every row and column cut.

    python docs/experiments/parity_cuts.py [--shapes 2x3] COVER.sol.json...

In every full cover, the cells above a horizontal cut have degrees summing to twice
their number less the ends among them; the same sum counts each edge inside twice and
each edge across the cut once. So the number of cover edges across the cut has the
parity of the ends above it (likewise for vertical cuts). CDCL cannot derive such a
count from the degree clauses, so each cut's parity is added as an XOR (a Tseitin chain
of 4-clause links). For each board: ``winding_prove.prove_unique`` without and with
them (and ``--shapes``' lex-min windows in both), the verdict, seconds and conflicts.
Results in ``docs/experiments/numberlink-frontier.md``, "Parity of cuts".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT), str(Path(__file__).resolve().parent)]

import lexmin_prover  # noqa: E402
import winding_prove  # noqa: E402
from winding_lexmin import parse_shapes  # noqa: E402

plain_cnf = winding_prove.degree_cnf


def xor_clauses(lits: list[int], odd: bool, pool, tag) -> list[list[int]]:
    """XOR of ``lits`` equal to ``odd``: a chain of fresh variables, one link each."""
    out, acc = [], lits[0]
    for k, x in enumerate(lits[1:]):
        y = pool.id((tag, k))
        out += [[-y, acc, x], [-y, -acc, -x], [y, -acc, x], [y, acc, -x]]
        acc = y
    return [*out, [acc] if odd else [-acc]]


def with_parity(grid):
    """``degree_cnf`` and one XOR per row cut and per column cut."""
    e, cnf, pool = plain_cnf(grid)
    cols = grid.cols
    for axis, size, side in (
        ("row", grid.rows, lambda v: v // cols),
        ("col", cols, lambda v: v % cols),
    ):
        for cut in range(size - 1):
            across = [
                e[j]
                for j, (u, v) in enumerate(grid.edges)
                if min(side(u), side(v)) <= cut < max(side(u), side(v))
            ]
            ends_before = sum(1 for v in grid.end_of if side(v) <= cut)
            cnf = cnf + xor_clauses(across, ends_before % 2 == 1, pool, (axis, cut))
    return e, cnf, pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", type=parse_shapes, default=())
    parser.add_argument("covers", nargs="+", type=Path)
    args = parser.parse_args()
    for cover in args.covers:
        board, paths = lexmin_prover._load(cover)
        for name, cnf in (("plain", plain_cnf), ("parity", with_parity)):
            winding_prove.degree_cnf = cnf
            verdict, seconds, _, conflicts = lexmin_prover.prove(
                board, paths, args.shapes, total_conflicts=10**9, max_conflicts=10**8
            )
            print(
                f"{cover.name} {name}: {verdict}, {seconds:.1f} s, {conflicts} conflicts",
                flush=True,
            )
    winding_prove.degree_cnf = plain_cnf


if __name__ == "__main__":
    main()
