"""Write uniquely solvable Numberlink boards like people's: few, long, winding paths.

    nice python scripts/make_winding_numberlink.py --out DIR 8x8:1-30 50x50:1-4 ...

Method. Plant a full cover whose paths never touch themselves (no cell of a path next
to a cell of the same path other than its path neighbours), with about
``cells / target`` paths, ``target = 4.6 * cells ** 0.25`` cells per pair (13 at 8x8, 19
at 17x17, 24 at 36x20, 33 at 50x50: the ratios of published puzzles, see
``instances/numberlink/winding/README.md``), planted ``--sparser`` times sparser since
the uniqueness loop below adds pairs:

* a random Hamiltonian path (``models.numberlink.generate``) cut where it touches
  itself (``cut_self_touches``);
* then random local moves on the cover, each kept only if no path touches itself and
  every path keeps at least three cells: *join* two paths whose ends are neighbours,
  and *bite*: an end e of path P next to a middle cell x of path Q takes x and one
  side of Q (P + x + that side, the other side stays a path). Joins lower the count of
  paths; bites move the ends so that new joins appear.

With ``--plant tubes`` the cover is planted instead by SAT as nested tubes, ends and
paths chosen together (``scripts/winding_tubes.py``), with exactly that many paths (if
the three ends the seed forces allow no such cover, other forced ends, up to ten times).
With ``--plant compose`` (even sizes) it is four boards of ``--tiles`` a quarter the size,
already proved unique, turned, mirrored and placed in a 2x2 (``scripts/winding_compose.py``):
the plant starts at the tiles' density, and any other cover must cross a seam (the split
loop's proofs are given that as a clause, ``winding_compose.seam_edges``).

Then "split until unique": a complete search looks for a full cover other than the
planted one (first ``pathsearch-numba``'s search for ``--quick-nodes`` decisions, then
``degree-sat``'s CNF with one more clause, "not every planted edge", for at most
``--check-conflicts`` conflicts per 400 cells, first near the planted cover for 20,000
per 400 cells, ``scripts/winding_prove.py``: unsatisfiable means unique). Another cover
found: a planted path is split at an edge that cover does not use (the most even such
cut), and the check runs again. Each split removes at least that cover and adds none (a
cover of the split board plus the cut edge is a cover of the old one), so the loop ends.
A check that decides nothing within its budget splits the longest path in the middle (logged
``undecided``; the cover count cannot grow, and the proof gets easier; ``--undecided-splits K``
splits the K longest, for large plants whose proof takes minutes), so every written
board is proved unique within ``--check-conflicts`` a check, the budget stated in the
README; boards the prover finds hard come out denser. With ``--replants N``, a plant
with more than ``--undecided-per-plant`` undecided checks (default 0) is dropped for a
fresh one (another seed), at most N times, the last plant splitting as above: each split
for an undecided check costs a pair no other cover asked for, and the plants that came
out sparsest met the fewest such checks. Once unique, joins of two paths
whose ends are neighbours (and which do not touch themselves) are tried, at most
``--improve-checks`` of them, each kept only when proved unique; with ``--batch K``, in
batches of up to K joins to one proof (``improve_batched`` below).

The proof itself is ``scripts/winding_prove.py``'s: the SAT backbone proof
(``--prover sat``, the default), or ``--prover count``: SAT within ``--sat-first``
conflicts, then the exact count of full covers by frontier dynamic programming
(``models/numberlink/frontier_count.py``, given up past ``--state-cap`` frontiers in
one step), then SAT with the full budget. Either way a board is written only when a
search was exhausted.

``--densify FROM`` skips the plant and the splits: it reads ``FROM``'s board of the same
name (already proved unique, with its cover) and runs the improve phase on it, so a longer
``--improve-s`` spends all its time on joins; it writes the board only if it came out
sparser (every join kept was proved unique as above). ``--densify-round N`` seeds the order of
the trials anew, so a further round also tries other joins on boards the last one left as they
were (the budgets are counted in conflicts, so the same order would repeat the same verdicts).

Incremental: each board is written (``PREFIX_RxC_sS.txt`` and ``.sol.json``) as soon as
it is proved, and boards already on disk are skipped, so a killed run resumes. Meant
to run in the background under ``nice``; one line of log per board.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from make_numberlink import board_spec  # beside this script
from make_sparse_unique_numberlink import (
    cut_self_touches,
    edges_of,
    expand,
    other_cover,
    split_longest,
    split_where_differs,
)
from make_unique_numberlink import board_of
from winding_compose import plant as compose_plant
from winding_compose import seam_edges
from winding_compose import why_not as cannot_compose
from winding_lexmin import parse_shapes
from winding_moves import _touches, bites, board_key, joins, wind  # noqa: F401 (_touches: experiments)
from winding_prove import NEAR_CONFLICTS, prove_unique, prove_unique_dp
from winding_tubes import plant as tube_plant
from winding_window import other_within, within

from models.numberlink.generate import hamiltonian_path
from models.numberlink.rules import Board, format_board, parse
from models.numberlink.verify import verify

Cell = tuple[int, int]


REPLANT_SEEDS = 10_000_000  # a replant's seed offset, past the forced-end retries


def target_cells_per_pair(rows: int, cols: int) -> float:
    return 4.6 * (rows * cols) ** 0.25


def check(rows: int, cols: int, paths: list[list[Cell]], args, stats: dict, improving=False):
    """Is the planted cover the only one? ("unique" | "other" | "undecided", other),
    cached per board (uniqueness is the board's, not the plant's)."""
    key = board_key(paths)
    if key in stats["cache"]:
        return stats["cache"][key]
    board = board_of(rows, cols, paths)
    stats["checks"] += 1
    verdict, other = "undecided", None
    if args.quick_nodes:
        verdict, other, _ = other_cover(board, edges_of(paths), args.quick_nodes)
    if verdict == "undecided":
        stats["sat"] += 1
        began = time.monotonic()
        scale = max(1.0, rows * cols / 400)  # each planted edge is asked: scale with cells
        budget = int((args.improve_conflicts if improving else args.check_conflicts) * scale)
        near = int(NEAR_CONFLICTS * scale)
        if args.prover == "count":
            verdict, other, figures = prove_unique_dp(
                board,
                paths,
                state_cap=args.state_cap,
                sat_first=args.sat_first,
                backend=args.backend,
                total_conflicts=budget,
                near_conflicts=near,
                lexmin=args.lexmin,
            )
            if figures["prover"] == "count":
                stats["counted"] += 1
        else:
            verdict, other, calls = prove_unique(
                board,
                paths,
                backend=args.backend,
                total_conflicts=budget,
                near_conflicts=near,
                lexmin=args.lexmin,
                # the split loop of a composed plant: every other cover crosses a seam
                # (winding_compose); the improve phase's joins void that
                crossing=seam_edges(rows, cols)
                if args.plant == "compose" and not improving
                else frozenset(),
            )
            figures = {"calls": calls}
        if args.verbose:
            took = time.monotonic() - began
            print(f"  {len(paths)} pairs: {verdict}, {figures}, {took:.2f} s", file=sys.stderr)
    stats["cache"][key] = (verdict, other)
    return verdict, other


def split_until_unique(
    rows: int, cols: int, paths: list[list[Cell]], args, stats: dict, drop_after: int | None = None
):
    """Split planted paths until the board is proved unique (module docstring); None
    when no split is left, or once more than ``drop_after`` checks were undecided."""
    undecided = 0
    paths = [list(p) for p in paths]
    while True:
        verdict, other = check(rows, cols, paths, args, stats)
        if verdict == "unique":
            return paths
        stats["splits"] += 1
        if verdict == "undecided":  # the split cannot add covers; the proof gets easier
            stats["undecided"] += 1
            undecided += 1
            if drop_after is not None and undecided > drop_after:
                return None
            if not any([split_longest(paths) for _ in range(args.undecided_splits)]):
                return None
        elif (other is None or not split_where_differs(paths, other)) and not split_longest(paths):
            return None


def sparse_enough(rows: int, cols: int, pairs: int, beyond: float) -> bool:
    """Whether ``pairs`` paths reach the size's target cells per pair times ``beyond``:
    where the improve phase stops, and where ``--densify`` does not start."""
    return rows * cols / pairs >= target_cells_per_pair(rows, cols) * beyond


def improve(rows: int, cols: int, paths, rng: random.Random, args, stats: dict):
    """Fewer pairs while unique: joins, each kept if proved unique; when none is left,
    a *move* that keeps the count (a bite, or a join split again where the other cover
    found for it differs) if proved unique, so that new joins appear. At most
    ``--improve-checks`` checks."""
    budget = stats["checks"] + args.improve_checks
    deadline = time.monotonic() + args.improve_s * rows * cols / 400
    for counter in ("joins", "moves"):
        stats.setdefault(counter, 0)

    def spent() -> bool:
        return stats["checks"] >= budget or time.monotonic() > deadline

    while not spent() and not sparse_enough(rows, cols, len(paths), args.beyond):
        for trial in sorted(joins(paths), key=lambda _: rng.random()):
            if spent():
                return paths
            if check(rows, cols, trial, args, stats, improving=True)[0] == "unique":
                stats["joins"] += 1
                paths = trial
                break
        else:
            moves = bites(paths)
            for trial in joins(paths):
                verdict, other = stats["cache"][board_key(trial)]
                if verdict == "other" and other is not None and split_where_differs(trial, other):
                    moves.append(trial)
            fresh = [m for m in moves if board_key(m) not in stats["cache"]]
            if not fresh:
                return paths
            trial = fresh[rng.randrange(len(fresh))]
            if check(rows, cols, trial, args, stats, improving=True)[0] == "unique":
                stats["moves"] += 1
                paths = trial
    return paths


def _ends(paths: list[list[Cell]]) -> set[Cell]:
    return {c for p in paths for c in (p[0], p[-1])}


def _unjoin(paths: list[list[Cell]], joined: list[frozenset], other: list) -> bool:
    """Split where ``other`` differs, at one of this batch's join edges if it lacks one
    (that undoes the join), else as ``split_where_differs``."""
    theirs = edges_of(other)
    for k, p in enumerate(paths):
        for i in range(1, len(p) - 2):  # both pieces keep at least two cells
            edge = frozenset((p[i], p[i + 1]))
            if edge in joined and edge not in theirs:
                paths[k : k + 1] = [p[: i + 1], p[i + 1 :]]
                return True
    return split_where_differs(paths, other)


def improve_batched(rows: int, cols: int, paths, rng: random.Random, args, stats: dict):
    """Fewer pairs while unique, many changes to one whole-board proof (``--batch``).

    A change (a join; when no join passes, a bite, which moves ends so that new joins
    appear) is taken into the batch when no other cover differs from the planted one
    within ``--local-radius`` cells of the ends it moves (``other_within``: the rest of
    the board fixed, a small problem) -- the other covers of a join mostly lie that
    near. Up to ``--batch`` joins so (and three times as many changes), then one
    whole-board check; another cover found splits where it differs (a join edge of the
    batch first) and the check runs again; undecided drops the batch and halves the next
    one. Every board kept is proved unique as in ``improve``; the local test only chooses
    what is worth proving.
    """
    deadline = time.monotonic() + args.improve_s * rows * cols / 400
    size, refused = args.batch, set()
    for counter in ("joins", "moves", "batches", "local", "unjoins"):
        stats.setdefault(counter, 0)

    def passes(trial: list[list[Cell]], candidate: list[list[Cell]]) -> frozenset | None:
        moved = frozenset(_ends(trial) ^ _ends(candidate))
        if moved in refused:
            return None
        stats["local"] += 1
        free = within(rows, cols, moved, args.local_radius)
        if other_within(rows, cols, candidate, free, args.local_conflicts)[0] == "unsat":
            return moved
        refused.add(moved)
        return None

    while time.monotonic() < deadline and not sparse_enough(rows, cols, len(paths), args.beyond):
        trial, changed, joined = [list(p) for p in paths], [], []
        while len(joined) < size and len(changed) < 3 * size and time.monotonic() < deadline:
            found = None
            for options in (  # a join if one passes, else a bite
                sorted(joins(trial), key=lambda _: rng.random()),
                sorted(bites(trial), key=lambda _: rng.random()),
            ):
                for candidate in options:
                    if time.monotonic() > deadline:
                        break
                    moved = passes(trial, candidate)
                    if moved is not None:
                        found = candidate
                        break
                if found is not None:
                    break
            if found is None:
                break  # nothing passes the local test
            if len(found) < len(trial):
                joined.append(frozenset(_ends(trial) - _ends(found)))
            trial = found
            changed.append(moved)
        if not changed:
            return paths
        while True:
            verdict, other = check(rows, cols, trial, args, stats, improving=True)
            if verdict == "unique" or verdict == "undecided" or other is None:
                break
            stats["unjoins"] += 1
            if not _unjoin(trial, joined, other):
                verdict = "undecided"
                break
        if verdict != "unique" or len(trial) > len(paths):
            size = max(1, size // 2)
            refused.update(changed)
            continue
        stats["joins"] += len(paths) - len(trial)
        stats["batches" if len(trial) < len(paths) else "moves"] += 1
        paths = trial
        refused.clear()  # the board changed: what failed near it may pass now
    return paths


def board_and_cover(rows: int, cols: int, paths: list[list[Cell]]) -> tuple[Board, dict]:
    """The board of ``paths``' ends and its cover, in the files' form (verified)."""
    board = board_of(rows, cols, paths)
    solution = {"paths": {str(k + 1): [list(c) for c in p] for k, p in enumerate(paths)}}
    assert verify(board, solution) is None
    return board, solution


def plant_cover(
    rows: int, cols: int, goal: int, seed: int, rng: random.Random, args
) -> list[list[Cell]] | None:
    """A full cover of about ``goal`` paths, none touching itself, labels shuffled (step 1 or
    ``--plant tubes``; ``--plant compose``: the tiles' paths, whatever their count); None
    when no tube plant is found."""
    if args.plant == "compose":
        paths = compose_plant(rows, cols, seed, Path(args.tiles), args.tiles_sparser)
    elif args.plant == "tubes":  # forced ends that allow no cover: others, up to 10 times
        tries = (tube_plant(rows, cols, goal, seed + 1_000_000 * k) for k in range(10))
        paths = next((p for p in tries if p is not None), None)
        if paths is None:
            return None
    else:
        paths = cut_self_touches(hamiltonian_path(rows, cols, rng))
        paths = wind(paths, rng, goal, args.steps * rows * cols)
    rng.shuffle(paths)  # labels not in path order
    return paths


def make(rows: int, cols: int, seed: int, args) -> tuple[Board, dict, dict] | str:
    rng = random.Random(seed)
    cells = rows * cols
    goal = max(2, round(cells / (target_cells_per_pair(rows, cols) * args.sparser)))
    stats: dict = {"cache": {}, "planted": 0, "checks": 0, "sat": 0, "counted": 0}
    stats.update(splits=0, undecided=0, replants=0, unique_at=0)
    for attempt in range(args.replants + 1):  # a plant with too many undecided checks: anew
        paths = plant_cover(rows, cols, goal, seed + REPLANT_SEEDS * attempt, rng, args)
        if paths is None:
            return "no plant (tubes: none within their budget)"
        stats["planted"] = len(paths)
        last = attempt == args.replants
        drop_after = None if last else args.undecided_per_plant
        unique = split_until_unique(rows, cols, paths, args, stats, drop_after)
        if unique is not None:
            break
        if last:
            return "no split left"
        stats["replants"] += 1
    stats["unique_at"] = len(unique)
    paths = (improve_batched if args.batch else improve)(rows, cols, unique, rng, args, stats)
    del stats["cache"]
    return (*board_and_cover(rows, cols, paths), stats)


def densify(rows: int, cols: int, seed: int, cover: Path, args) -> tuple[Board, dict, dict] | str:
    """The improve phase alone, from a board proved unique before (``--densify``)."""
    paths = [[tuple(c) for c in p] for p in json.loads(cover.read_text())["paths"].values()]
    stats: dict = {"cache": {}, "from": len(paths), "checks": 0, "sat": 0, "counted": 0}
    if sparse_enough(rows, cols, len(paths), args.beyond):
        return "at its target already"
    rng = random.Random(seed + 100_000 * args.densify_round)  # each round tries another order
    paths = (improve_batched if args.batch else improve)(rows, cols, paths, rng, args, stats)
    del stats["cache"]
    if len(paths) == stats["from"]:
        return "no join proved unique"
    return (*board_and_cover(rows, cols, paths), stats)


def table(folder: Path) -> str:
    """The markdown table of boards and cells per pair per size, read from the files."""
    ratios: dict[tuple[int, int], list[float]] = {}
    for path in sorted(folder.glob("*.txt")):
        board = parse(path.read_text(), str(path))
        ratios.setdefault((board.rows, board.cols), []).append(
            board.rows * board.cols / len(board.ends)
        )
    lines = ["| size | boards | target | cells per pair: median (min-max) |", "|---|---|---|---|"]

    def row(name: str, xs: list[float], target: str) -> str:
        return f"| {name} | {len(xs)} | {target} | {median(xs):.1f} ({min(xs):.1f}-{max(xs):.1f}) |"

    for (r, c), xs in sorted(ratios.items(), key=lambda kv: kv[0][0] * kv[0][1]):
        lines.append(row(f"{r}x{c}", xs, f"{target_cells_per_pair(r, c):.1f}"))
    every = [x for xs in ratios.values() for x in xs]
    if every:
        lines.append(row("all", every, ""))
    return "\n".join(lines) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Write beside, then rename: a kill never leaves a half-written file behind."""
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--prefix", default="w", help="file names PREFIX_RxC_sS")
    parser.add_argument("--sparser", type=float, default=1.3, help="plant this much sparser")
    parser.add_argument(
        "--plant",
        choices=("walk", "tubes", "compose"),
        default="walk",
        help="walk: a cut Hamiltonian path, joined and bitten; tubes: nested tubes by SAT "
        "(scripts/winding_tubes.py); compose: four unique --tiles boards in a 2x2 "
        "(scripts/winding_compose.py)",
    )
    parser.add_argument(
        "--tiles",
        default=str(Path(__file__).resolve().parent.parent / "instances/numberlink/winding"),
        help="compose: the folder of proved boards (with covers) to draw the tiles from",
    )
    parser.add_argument(
        "--tiles-sparser",
        type=float,
        default=0.0,
        metavar="CELLS_PER_PAIR",
        help="compose: draw only tiles with at least this many cells per pair",
    )
    parser.add_argument("--steps", type=int, default=60, help="winding moves tried per cell")
    parser.add_argument("--quick-nodes", type=int, default=0, help="path search first (0: off)")
    parser.add_argument(
        "--check-conflicts", type=int, default=2_000_000, help="a check's budget, per 400 cells"
    )
    parser.add_argument(
        "--improve-conflicts", type=int, default=300_000, help="the same, once unique"
    )
    parser.add_argument("--backend", default="cadical195", help="PySAT solver of the proofs")
    parser.add_argument(
        "--lexmin",
        type=parse_shapes,
        default=(),
        metavar="SHAPES",
        help="windows (e.g. 3x3,2x4,4x2) whose clauses leave the proof only locally least "
        "covers (scripts/winding_lexmin.py); default none",
    )
    parser.add_argument(
        "--prover",
        choices=("sat", "count"),
        default="sat",
        help="sat: the SAT backbone proof; count: SAT briefly, then the exact frontier "
        "count, then SAT in full (scripts/winding_prove.py)",
    )
    parser.add_argument("--state-cap", type=int, default=300_000, help="count: frontiers a layer")
    parser.add_argument("--sat-first", type=int, default=20_000, help="count: SAT's first try")
    parser.add_argument("--tries", type=int, default=1, help="plants per board, sparsest kept")
    parser.add_argument(
        "--replants", type=int, default=0, help="plant anew past the undecided checks let pass"
    )
    parser.add_argument(
        "--undecided-per-plant", type=int, default=0, help="replants: undecided checks a plant"
    )
    parser.add_argument(
        "--undecided-splits",
        type=int,
        default=1,
        help="paths split at an undecided check (more: fewer checks, a few pairs more)",
    )
    parser.add_argument("--improve-checks", type=int, default=1000, help="checks once unique")
    parser.add_argument("--improve-s", type=float, default=30.0, help="improve time, per 400 cells")
    parser.add_argument("--beyond", type=float, default=1.2, help="stop at target times this")
    parser.add_argument("--verbose", action="store_true", help="one line a check")
    parser.add_argument("--densify", help="improve FROM/PREFIX_RxC_sS instead of planting")
    parser.add_argument(
        "--densify-round",
        type=int,
        default=0,
        help="densify: another round on boards densified before tries the joins in another order",
    )
    parser.add_argument(
        "--batch", type=int, default=0, help="improve: up to this many joins a proof (0: one)"
    )
    parser.add_argument("--local-radius", type=int, default=10, help="batch: local test's reach")
    parser.add_argument(
        "--local-conflicts", type=int, default=20_000, help="batch: local test's budget"
    )
    parser.add_argument("--table", action="store_true", help="print --out's table, write none")
    parser.add_argument("specs", nargs="*", help="ROWSxCOLS:SEED or ROWSxCOLS:FIRST-LAST")
    args = parser.parse_args()
    out = Path(args.out)
    if args.table:
        print(table(out), end="")
        return
    try:
        specs = [board_spec(s)[:3] for group in args.specs for s in expand(group)]
    except ValueError:
        specs = []
    if not specs or any(min(r, c) < 2 or r * c < 8 for r, c, _ in specs):
        print(
            f"error: board specs must be ROWSxCOLS:SEED or ROWSxCOLS:FIRST-LAST, at least "
            f"8 cells (got {' '.join(args.specs) or 'none'})",
            file=sys.stderr,
        )
        sys.exit(2)
    if args.plant == "compose" and not args.densify:
        for rows, cols, _ in specs:
            if reason := cannot_compose(rows, cols, Path(args.tiles), args.tiles_sparser):
                print(f"error: --plant compose: {reason}", file=sys.stderr)
                sys.exit(2)
    out.mkdir(parents=True, exist_ok=True)
    for rows, cols, seed in specs:
        name = f"{args.prefix}_{rows}x{cols}_s{seed}"
        if (out / f"{name}.sol.json").exists():
            continue
        began = time.monotonic()
        made: tuple | str = "no try"
        if args.densify:
            cover = Path(args.densify) / f"{name}.sol.json"
            made = densify(rows, cols, seed, cover, args) if cover.exists() else "no board"
        else:
            for t in range(args.tries):  # keep the sparsest of the tries
                one = make(rows, cols, seed + 100_000 * t, args)
                if isinstance(made, str) or (
                    not isinstance(one, str) and len(one[0].ends) < len(made[0].ends)
                ):
                    made = one
        took = time.monotonic() - began
        if isinstance(made, str):
            print(f"{name}: dropped ({made}), {took:.1f} s", flush=True)
            continue
        board, solution, stats = made
        write_atomically(out / f"{name}.txt", format_board(board))
        write_atomically(out / f"{name}.sol.json", json.dumps(solution) + "\n")
        pairs = len(board.ends)
        print(
            f"{name}: {pairs} pairs ({rows * cols / pairs:.1f} cells/pair), "
            + ", ".join(f"{k} {v}" for k, v in stats.items())
            + f", {took:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
