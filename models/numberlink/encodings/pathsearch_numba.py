"""``pathsearch-numba``: a dedicated, complete path-growing search compiled with numba.

Paths grow from their open ends, one decision at a time at the end with the fewest
moves; forced moves, dead cells, stranded pairs and regions, cut cells that two pairs
would need and a chessboard parity count prune (``_pathsearch.py`` states each rule
with the reason it holds for every full cover). It answers ``solved`` with a full
cover (the harness verifies it), ``infeasible`` only when the search is exhausted with sound rules alone, ``timeout``
when the time limit runs out (the clock is read between chunks of decisions).

Option ``restart`` (default 0: none) restarts the search with random tie-breaks after a
Luby budget of refuted states until the first solution (complete: the budgets grow
without bound); it rescues some generated boards with many solutions and costs others.

Option ``assume_unique`` (default off) adds the rule "a path never touches itself",
which published puzzles follow and boards with several solutions may not. A run with
it never answers ``infeasible``: an exhausted search is reported as ``timeout`` with a
message saying so (the run's options record the choice).

Option ``untouched_first`` (default on; no effect with ``assume_unique``) runs two
searches in turns of ``RACE_NODES`` decisions: one with that rule, one without. A cover
either finds is a full cover (the rule only removes covers, it adds none), so it is the
answer; only the complete search, exhausted, answers ``infeasible``, and an exhausted
untouched search only leaves the complete one to run alone. Puzzles whose paths wind
without touching themselves are solved at the speed of the rule, other boards at
worst about twice as slowly as the complete search alone.

``check_unique`` continues the complete search after the first solution: it reaches
every full cover exactly once, so a cover other than the answer means "not unique" and
an exhausted search "unique".

Counters (deterministic, the same with any chunking): ``nodes`` (decisions taken),
``backtracks`` (decisions whose every branch failed), ``forced`` (forced moves made),
``fails`` (states refuted by a rule).

The kernel is compiled on first import and cached on disk (numba ``cache=True``);
importing this module runs it once on a 2x2 board, so the warm parent of a sweep that
runs it (a sweep imports the encodings it runs) has it compiled and loaded before any run
forks.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numba
import numpy as np

from models.base import Limits, ModelSize
from models.numberlink.encodings import _pathsearch as ps
from models.numberlink.encodings._race import EXHAUSTED, FOUND, RacingSearch, run_in_chunks
from models.numberlink.rules import Board

#: first chunk of decisions between two looks at the clock; later chunks aim at CHUNK_S
FIRST_CHUNK = 2_000
CHUNK_S = 0.05
#: decisions per turn when the untouched and the complete search take turns
RACE_NODES = 2_000
assert (ps.SOLVED, ps.EXHAUSTED) == (FOUND, EXHAUSTED)  # the race reads these codes


class PathSearch:
    """The search state as arrays (see ``_pathsearch.py``), resumable chunk by chunk."""

    def __init__(self, board: Board, unique: bool = False):
        rows, cols = board.rows, board.cols
        n = rows * cols
        self.board = board
        neighbour = np.full((n, 4), -1, dtype=np.int32)
        for v in range(n):
            r, c = divmod(v, cols)
            for d, (dr, dc) in enumerate(((-1, 0), (0, -1), (0, 1), (1, 0))):
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    neighbour[v, d] = (r + dr) * cols + c + dc
        self.neighbour = neighbour
        self.parity = np.array([(v // cols + v % cols) & 1 for v in range(n)], dtype=np.int32)
        npairs = len(board.ends)
        self.owner = np.zeros(n, dtype=np.int32)
        self.open_end = np.zeros(2 * npairs, dtype=np.int32)
        self.joined = np.zeros(npairs, dtype=np.int32)
        self.slot_at = np.full(n, -1, dtype=np.int32)
        for k, (p, q) in enumerate(board.ends.values()):
            for s, (r, c) in enumerate((p, q)):
                v = r * cols + c
                self.owner[v] = k + 1
                self.open_end[2 * k + s] = v
                self.slot_at[v] = 2 * k + s
        depth = n + npairs + 1
        self.trail_slot = np.zeros(depth, dtype=np.int32)
        self.trail_from = np.zeros(depth, dtype=np.int32)
        self.trail_to = np.zeros(depth, dtype=np.int32)
        self.frame_trail = np.zeros(depth, dtype=np.int32)
        self.frame_slot = np.zeros(depth, dtype=np.int32)
        self.frame_moves = np.zeros((depth, 5), dtype=np.int32)
        self.frame_count = np.zeros(depth, dtype=np.int32)
        self.frame_next = np.zeros(depth, dtype=np.int32)
        self.region_of = np.zeros(n, dtype=np.int32)
        self.queue = np.zeros(n, dtype=np.int32)
        self.region_info = np.zeros((n + 1, 6), dtype=np.int64)
        self.pair_regions = np.zeros((max(1, npairs), 7), dtype=np.int32)
        self.dfs_order = np.zeros(n, dtype=np.int32)
        self.dfs_low = np.zeros(n, dtype=np.int32)
        self.subtree = np.zeros((n, 3), dtype=np.int32)
        self.dfs_dir = np.zeros(n, dtype=np.int32)
        self.dfs_stack = np.zeros(n, dtype=np.int32)
        self.meta = np.zeros(ps.META, dtype=np.int64)
        self.meta[ps.EMPTY] = n - 2 * npairs
        self.meta[ps.OPEN] = npairs
        self.meta[ps.UNIQUE] = int(unique)
        self.meta[ps.MODE] = ps.DESCEND
        self.meta[ps.RNG] = 2463534242

    def configure(self, restart: int, seed: int = 0) -> None:
        """Restart budget (0: none) and the seed of the random tie-breaks."""
        self.meta[ps.RESTART] = restart
        self.meta[ps.RNG] = 2463534242 + 7919 * seed

    def step(self, budget: int) -> int:
        return ps.run(
            self.neighbour,
            self.parity,
            self.owner,
            self.open_end,
            self.joined,
            self.slot_at,
            self.trail_slot,
            self.trail_from,
            self.trail_to,
            self.frame_trail,
            self.frame_slot,
            self.frame_moves,
            self.frame_count,
            self.frame_next,
            self.region_of,
            self.queue,
            self.region_info,
            self.pair_regions,
            self.dfs_order,
            self.dfs_low,
            self.subtree,
            self.dfs_dir,
            self.dfs_stack,
            self.meta,
            budget,
        )

    def next_solution(self, deadline: float | None) -> int | None:
        """SOLVED or EXHAUSTED, or None when the deadline passed first."""
        code = run_in_chunks(
            self.step, lambda: self.meta[ps.NODES], deadline, FIRST_CHUNK, ps.BUDGET, CHUNK_S
        )
        if code == ps.SOLVED:
            self.meta[ps.RESTART] = 0  # from here on enumerate: each cover once
        return code

    def counters(self) -> dict[str, float]:
        m = self.meta
        return {
            "nodes": int(m[ps.NODES]),
            "backtracks": int(m[ps.BACKTRACKS]),
            "forced": int(m[ps.FORCED]),
            "fails": int(m[ps.FAILS]),
            "restarts": int(m[ps.RESTARTS]),
        }

    def paths(self) -> dict[str, list[list[int]]]:
        """The current full cover, each path walked from its first end to its second."""
        cols = self.board.cols
        links: dict[int, list[int]] = {}
        for t in range(int(self.meta[ps.TRAIL_LEN])):
            a, b = int(self.trail_from[t]), int(self.trail_to[t])
            links.setdefault(a, []).append(b)
            links.setdefault(b, []).append(a)
        out = {}
        for label, (p, q) in self.board.ends.items():
            here, prev = p[0] * cols + p[1], -1
            goal = q[0] * cols + q[1]
            walk = [here]
            while here != goal:
                here, prev = next(x for x in links[here] if x != prev), here
                walk.append(here)
            out[label] = [list(divmod(v, cols)) for v in walk]
        return out


def _warm() -> None:
    """Compile (or load from the on-disk cache) the kernel with every branch typed."""
    board = Board(2, 2, (("1", "1"), ("2", "2")))
    search = PathSearch(board)
    search.next_solution(None)
    search.next_solution(None)


class PathSearchNumba(RacingSearch):
    name = "pathsearch-numba"
    puzzles = ("numberlink",)
    solver = "numba"
    reference = False
    race_nodes = RACE_NODES
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "assume_unique": (False, True),
        "restart": (0, 1000, 10000),
        "untouched_first": (True, False),
    }

    @classmethod
    def solver_version(cls) -> str:
        return f"puzzle-bench path search (numba {numba.__version__})"

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        self.unique = bool(self.option("assume_unique"))
        self.board, self.seed = instance, limits.seed
        self.search = PathSearch(instance, self.unique)
        self.search.configure(self.option("restart"), limits.seed)
        self.untouched = None
        if not self.unique and self.option("untouched_first"):
            self.untouched = PathSearch(instance, True)
            self.untouched.configure(self.option("restart"), limits.seed)
        self._reset()
        n = instance.rows * instance.cols
        edges = instance.rows * (instance.cols - 1) + instance.cols * (instance.rows - 1)
        return ModelSize(n_vars=n, n_constraints=edges)

    def _on_found(self, search: PathSearch) -> None:
        search.meta[ps.RESTART] = 0  # a search that answered restarts no more


_warm()
