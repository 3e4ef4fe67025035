"""One figure for a paper: cactus, scatter, scaling (with its fit), PAR-2 or a solved board.

Sized for one column (3.3 in) or two (7 in), each encoding in its fixed colour-blind-safe
colour and marker (the report's), fonts embedded in PDF (TrueType). The file type follows
--out: .pdf, .svg or .png. Runs are named as for `report` and merged. Cactus, PAR-2,
scaling and scatter draw the report's main comparison (the configurations at their defaults
on the instances they all ran, ``bench.analysis.groups``), or one suite case with --case;
labels are the report's (options off their defaults only).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from bench.analysis.sources import REPORT_FIELDS, load_runs
from bench.outputs import write_output
from bench.store_layout import DEFAULT_STORE
from models.errors import UsageError

KINDS = ("cactus", "scatter", "scaling", "par2", "board")
SUFFIXES = (".pdf", ".svg", ".png")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("runs", nargs="*", default=["latest"], help="run ids (default: latest)")
    parser.add_argument("--out", required=True, metavar="FIG.pdf|svg|png")
    parser.add_argument("--width", choices=("single", "double"), default="single",
                        help="one column, 3.3 in (default), or two columns, 7 in")  # fmt: skip
    parser.add_argument("--store", default=str(DEFAULT_STORE), metavar="PATH")
    parser.add_argument("--puzzle", metavar="P", help="needed when the runs hold several puzzles")
    parser.add_argument("--x", metavar="CONFIG", help="scatter: x configuration (default: leader)")
    parser.add_argument("--y", metavar="CONFIG", help="scatter: y configuration (default: next)")
    parser.add_argument("--instance", help="board: which instance (default: the largest solved)")
    parser.add_argument("--no-title", action="store_true", help="leave the title to the caption")
    parser.add_argument("--case", metavar="NAME",
                        help="draw this suite case's configurations (default: the main comparison)")  # fmt: skip


def main(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix.lower() not in SUFFIXES:
        raise UsageError(f"--out {out}: the file name must end in {', '.join(SUFFIXES)}")
    import matplotlib.pyplot as plt  # matplotlib: paid only by this command

    from bench.analysis import charts, groups
    from bench.analysis.style import PAPER, paper_rc
    from bench.analysis.tables import per_instance, with_config

    runs = load_runs(args.runs, args.store, args.puzzle, columns=REPORT_FIELDS)[1]
    puzzles = sorted(set(runs["puzzle"]))
    if len(puzzles) != 1:
        raise UsageError(
            f"the runs hold {len(puzzles)} puzzles: choose one with --puzzle ({', '.join(puzzles)})"
        )
    puzzle = puzzles[0]
    runs = with_config(runs)
    instances = _chosen(runs, per_instance(runs), puzzle, args.case, groups)
    layout = PAPER[args.width]
    title = not args.no_title
    with paper_rc(layout):
        if args.kind == "cactus":
            figure = charts.cactus(instances, puzzle, layout, title)
        elif args.kind == "par2":
            figure = charts.par2_bars(instances, puzzle, layout, title)
        elif args.kind == "scaling":
            if instances["size"].nunique() < 2:
                raise UsageError(f"{puzzle}: one board size only, nothing to scale")
            figure = charts.scaling(instances, puzzle, layout, title)
        elif args.kind == "scatter":
            x, y = _pair(instances, puzzle, args.x, args.y)
            figure = charts.scatter(instances, puzzle, x, y, layout, title)
        else:
            figure = _board(runs, puzzle, args.instance, layout.width)
        dpi = 300 if out.suffix.lower() == ".png" else layout.dpi
        write_output(out, lambda tmp: figure.savefig(tmp, dpi=dpi))
    plt.close(figure)
    print(f"wrote {out}")
    return 0


def _chosen(runs: pd.DataFrame, instances: pd.DataFrame, puzzle: str, case: str | None,
            groups) -> pd.DataFrame:  # fmt: skip
    """The per-instance rows of the main comparison, or of one case."""
    if case is None:
        return groups.chart_groups(runs, instances, puzzle)[0].select(instances)
    cases = sorted(set(runs.loc[runs["puzzle"] == puzzle, "case"].astype(str)))
    if case not in cases:
        raise UsageError(f"no case {case!r} in these runs (cases: {', '.join(cases)})")
    pairs = runs.loc[runs["case"] == case, ["config", "instance"]].drop_duplicates()
    keep = instances.set_index(["config", "instance"]).index.isin(
        pairs.set_index(["config", "instance"]).index
    )
    return instances[keep]


def _pair(instances: pd.DataFrame, puzzle: str, x: str | None, y: str | None) -> tuple[str, str]:
    from bench.analysis.paired import ranking

    order = ranking(instances)
    for name in (x, y):
        if name and name not in order:
            raise UsageError(f"no configuration {name!r} (configurations: {', '.join(order)})")
    x = x or next((c for c in order if c != y), None)
    y = y or next((c for c in order if c != x), None)
    if x is None or y is None:
        raise UsageError(f"{puzzle}: a scatter plot needs two configurations")
    return x, y


def _board(runs: pd.DataFrame, puzzle: str, instance: str | None, width: float):
    """The chosen (or largest) solved board, drawn by the puzzle's own rules at the width."""
    from bench.analysis.tables import size_cells
    from models import registry  # rules only: load and draw, no encoding

    solved = runs[(runs["status"] == "solved") & runs["solution"].notna()]
    if instance:
        solved = solved[solved["instance"] == instance]
    if solved.empty:
        raise UsageError(
            f"{puzzle}: no stored solution{' of ' + instance if instance else ''} to draw"
        )
    row = solved.assign(cells=solved["size"].map(size_cells)).sort_values("cells").iloc[-1]
    loaded = registry.load_instance(row["instance"], puzzle).instance
    problem = registry.get_puzzle(puzzle).verify(loaded, row["solution"])
    if problem is not None:
        raise UsageError(f"{row['instance']} no longer matches its stored solution ({problem})")
    figure = registry.get_puzzle(puzzle).draw(loaded, row["solution"])
    w, h = figure.get_size_inches()
    figure.set_size_inches(width, width * h / w)
    return figure
