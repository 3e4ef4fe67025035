"""``scanline-numba``: a cell-by-cell search in a fixed order, compiled with numba.

The search (``_scanline.py``, which states every rule and why it holds) visits the cells
in a fixed order and decides each cell's east and south edges, refusing loops, links
of two numbers and cells left without the edges they need in O(1) per edge; failed
frontier states are remembered (``memo``). It answers ``solved`` with a full cover
(the harness verifies it), ``infeasible`` only when the search is exhausted with rules
valid for every cover, ``timeout`` when the time limit runs out (the clock is read
between chunks of cells).

Options:

* ``order``: ``diagonal`` (anti-diagonals from the top-left corner) or ``rows`` (row by
  row along the shorter side: the frontier is then one cell per column, the fewest
  states to remember).
* ``assume_unique`` (default off) adds the concentric-corner rules, valid for covers in
  which no path touches itself, as published puzzles are drawn. A run with it never
  answers ``infeasible``: an exhausted search is reported as ``timeout`` with a message
  saying so.
* In both modes the same rules as clauses (``degree-sat`` with ``assume_unique``) join
  the turns as a *partner* once the scan searches have entered ``PARTNER_AFTER`` cells,
  ``CORNER_SAT_CONFLICTS`` conflicts a turn every round. On sparse boards from 40x40 up
  the corner search thrashes on parallel strands that can only turn together, a doom no
  rule at one cell sees and CDCL learns (planted 50x50 boards at 33-43 cells per pair:
  no cover in 10 s by the corner search, 2,800-13,400 conflicts by the clauses). Its
  covers are full covers; its unsatisfiable formula proves nothing, so it only leaves.
* ``untouched_first`` (default on; no effect with ``assume_unique``): a second search
  with the corner rules takes turns with the complete one, ``RACE_NODES`` and
  ``COMPLETE_NODES`` cells (about equal time; fixed, so the counters repeat). A cover
  either finds is a full cover (the rules only remove covers), so it is the answer;
  only the complete search, exhausted, answers ``infeasible``. On boards whose covers
  touch themselves (dense boards, and boards with many covers and few long paths, where
  the corner rules find nothing) and the scan searches stall, three searches of other
  kinds join the turns after ``BACKUP_AFTER`` cells (``_race.py``, ``_race_members.py``;
  one of them a round, in rotation, while the corner search is still in the race; each
  turn about as long as the others'): ``pathsearch-numba``'s complete search (the
  *backup*: most constrained path end first, with region and cut rules; it answers the
  dense boards of ``unique/`` up to 25x25 in a few thousand decisions), ``degree-sat``'s
  CNF (*sat*: the dense ones from 30x30 and boards with many short paths) and
  ``fill-sat``'s route-and-fill local search (*fill*: few long paths, many covers). The
  first two are complete, so their exhaustion proves ``infeasible`` too; the fill only
  finds covers. ``check_unique`` continues the backup when it answered, else enumerates
  with the complete scan search.
* ``memo``: remember failed states (on boards under ``MEMO_CELLS`` cells); ``nest``:
  the nesting rule. Both for the complete search only: the corner rules make the
  future depend on more than the frontier, and the search with them only looks for
  covers, where a pass over the frontier at each cell costs more than it cuts (on the
  270 published-style boards the nesting rule saved 7 % of the cells and cost 40 %
  more time).

``check_unique`` continues the complete search after the first solution: it reaches
every full cover exactly once, so another cover means "not unique" and an exhausted
search "unique".

Counters are ``_scanline.py``'s, summed over both scan searches, plus ``untouched`` (1
when the search with the corner rules found the answer); once the partner or the backups
joined, each one's counters with the prefix ``corner_sat_``, ``backup_``, ``sat_`` or
``fill_``, and ``corner_sat``, ``backup``, ``sat`` or ``fill`` (1 for the one that found
the answer).

The kernel is compiled on first import and cached on disk (numba ``cache=True``);
importing this module runs it once on a 2x2 board, so the warm parent of a sweep has it
compiled before any run forks.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, ClassVar

import numba
import numpy as np

from models.base import Limits, ModelSize
from models.numberlink.encodings import _scanline as sl
from models.numberlink.encodings._race import EXHAUSTED, FOUND, Member, RacingSearch, run_in_chunks
from models.numberlink.encodings._race_members import CnfSearch, FillSearch
from models.numberlink.encodings._scanline_memo import allocate, capacity_limit, grow
from models.numberlink.encodings._scanline_rules import side_keys
from models.numberlink.encodings.pathsearch_numba import PathSearch
from models.numberlink.rules import Board
from models.solvers import version

FIRST_CHUNK = 5_000
CHUNK_S = 0.05
#: the failed-state store keys positions as int16: larger boards run without it
MEMO_CELLS = 32_000
#: cells entered per turn when the corner-rule search and the complete one take turns:
#: RACE_NODES for the corner search, COMPLETE_NODES for the complete one, whose cell costs
#: about four of the corner search's (failed-state store, nesting and parity passes), so
#: that each turn takes about as long
RACE_NODES = 5_000
COMPLETE_NODES = RACE_NODES // 4
#: the backup (pathsearch-numba's complete search) joins the race after this many cells
#: entered by the two scan searches, and takes BACKUP_WORK // cells decisions a turn (a
#: decision there costs about a scan of the board, some 50 ns a cell: a turn takes about
#: as long as the corner search's)
BACKUP_AFTER = 60_000
BACKUP_WORK = 80_000
#: with it, degree-sat's CNF (SAT_CONFLICTS conflicts a turn) and fill-sat's local search
#: (FILL_WORK free cells scanned a turn), each turn about as long as the others'
SAT_CONFLICTS = 75
FILL_WORK = 1_000
#: the corner rules as clauses: a partner (a turn every round) once the scan searches have
#: entered PARTNER_AFTER cells (its CNF takes 10-70 ms to build at 25x25, more than most
#: boards the corner search answers take in all), CORNER_SAT_CONFLICTS conflicts a turn
PARTNER_AFTER = 25_000
CORNER_SAT_CONFLICTS = 500
assert (sl.SOLVED, sl.EXHAUSTED) == (FOUND, EXHAUSTED)  # the race reads these codes


def board_tables(board: Board, order: str) -> SimpleNamespace:
    """What the search reads and never changes, for a board scanned in ``order``."""
    flip = order == "rows" and board.cols > board.rows
    rows, cols = (board.cols, board.rows) if flip else (board.rows, board.cols)
    n = rows * cols
    colour = np.zeros(n, dtype=np.int32)
    for k, ends in enumerate(board.ends.values()):
        for r, c in ends:
            rr, cc = (c, r) if flip else (r, c)
            colour[rr * cols + cc] = k + 1
    v = np.arange(n, dtype=np.int32)
    row, col = v // cols, v % cols
    nb = np.stack(
        [
            np.where(row > 0, v - cols, -1),
            np.where(col > 0, v - 1, -1),
            np.where(col < cols - 1, v + 1, -1),
            np.where(row < rows - 1, v + cols, -1),
        ],
        axis=1,
    ).astype(np.int32)
    # can[v]: a number lies on v's south-east (0) / south-west (1) diagonal ray
    end = colour.reshape(rows, cols) > 0
    se = np.zeros((rows, cols), dtype=bool)
    sw = np.zeros((rows, cols), dtype=bool)
    for r in range(rows - 2, -1, -1):
        se[r, :-1] = end[r + 1, 1:] | se[r + 1, 1:]
        sw[r, 1:] = end[r + 1, :-1] | sw[r + 1, :-1]
    can = np.stack([se.ravel(), sw.ravel()], axis=1).astype(np.int8)
    # rows, or anti-diagonals each from its top-right cell down to the left
    order_ = v.copy() if order == "rows" else np.lexsort((row, row + col)).astype(np.int32)
    place = np.zeros(n, dtype=np.int32)
    place[order_] = v
    # fw[i]: how many positions from i on an edge from a visited cell may lead into
    ahead = np.where(nb >= 0, place[nb], -1)[order_][:, 2:].max(axis=1)
    reach = np.concatenate(([-1], np.maximum.accumulate(ahead)))
    fw = np.maximum(0, reach + 1 - np.arange(n + 1)).astype(np.int32)
    # chessboard colours and their sums over the cells (and the ends) from each position
    sign = (1 - 2 * ((row + col) & 1)).astype(np.int32)
    at = sign[order_]
    suf = np.zeros(n + 1, dtype=np.int64)
    suf[:n] = np.cumsum(at[::-1])[::-1]
    sufsrc = np.zeros(n + 1, dtype=np.int64)
    sufsrc[:n] = np.cumsum((at * (colour[order_] > 0))[::-1])[::-1]
    # the nesting rule's curve positions (``_scanline_rules.py``)
    skey = side_keys(rows, cols)
    ends = np.flatnonzero(colour).astype(np.int32)
    return SimpleNamespace(
        flip=flip,
        rows=rows,
        cols=cols,
        colour=colour,
        nb=nb,
        can=can,
        order=order_,
        place=place,
        fw=fw,
        sign=sign,
        suf=suf,
        sufsrc=sufsrc,
        skey=skey,
        ends=ends,
    )


class ScanSearch:
    """The search state as arrays (see ``_scanline.py``), resumable chunk by chunk.
    ``tables`` (``board_tables``) may be shared by two searches of one board."""

    def __init__(
        self,
        board: Board,
        order: str = "diagonal",
        unique: bool = False,
        memo: bool = True,
        nest: bool = True,
        tables: SimpleNamespace | None = None,
    ):
        self.board = board
        self.tables = tables if tables is not None else board_tables(board, order)
        self.__dict__.update(vars(self.tables))
        rows, cols, n = self.rows, self.cols, self.rows * self.cols
        fw = self.fw
        # the nesting rule's scratch
        self.ev_at = np.zeros(4 * (rows + cols) + 1, dtype=np.int64)
        self.ev_col = np.zeros(4 * (rows + cols) + 1, dtype=np.int32)
        self.per = np.zeros((len(board.ends) + 1, 4), dtype=np.int64)
        self.stack = np.zeros(len(board.ends) + 1, dtype=np.int32)
        self.con = np.zeros(n, dtype=np.int32)
        self.end = np.arange(n, dtype=np.int32)
        self.forbid = np.zeros(n, dtype=np.int32)
        # the corner search's pieces: parent, pair (for roots), size (``_scanline.py``)
        self.uf = np.concatenate([np.arange(n), self.colour, np.ones(n)]).astype(np.int32)
        self.trail = np.zeros((24 * n + 64, 3), dtype=np.int32)
        self.frames = np.zeros((n + 1, 4), dtype=np.int64)
        self.fopt = np.zeros((n + 1, 2), dtype=np.int32)
        memo = memo and not unique and n < MEMO_CELLS
        width = 1 + int(fw.max())
        self.slots, self.keys = allocate(width, memo)
        self.kbuf = np.zeros(width, dtype=np.int16)
        self.meta = np.zeros(sl.META, dtype=np.int64)
        self.meta[sl.UNIQUE] = int(unique)
        self.meta[sl.MEMO] = int(memo)
        self.meta[sl.MEMO_LIMIT] = capacity_limit(width)
        self.meta[sl.NEST] = int(nest and not unique)

    def step(self, budget: int) -> int:
        """Search on for at most ``budget`` cells entered (growing the store as asked)."""
        start = int(self.meta[sl.NODES])
        while True:
            code = self._run(budget - (int(self.meta[sl.NODES]) - start))
            if code != sl.GROW:
                return code
            self.slots, self.keys = grow(
                self.slots, self.keys, int(self.meta[sl.STORED]), int(self.meta[sl.MEMO_LIMIT])
            )

    def _run(self, budget: int) -> int:
        return sl.run(
            self.order,
            self.place,
            self.colour,
            self.nb,
            self.can,
            self.fw,
            self.sign,
            self.suf,
            self.sufsrc,
            self.skey,
            self.ends,
            self.con,
            self.end,
            self.forbid,
            self.uf,
            self.trail,
            self.frames,
            self.fopt,
            self.slots,
            self.keys,
            self.kbuf,
            self.ev_at,
            self.ev_col,
            self.per,
            self.stack,
            self.meta,
            budget,
        )

    def next_solution(self, deadline: float | None) -> int | None:
        """SOLVED or EXHAUSTED, or None when the deadline passed first."""
        code = run_in_chunks(
            self.step, lambda: self.meta[sl.NODES], deadline, FIRST_CHUNK, sl.BUDGET, CHUNK_S
        )
        return code

    def counters(self) -> dict[str, float]:
        m = self.meta
        return {
            "nodes": int(m[sl.NODES]),
            "backtracks": int(m[sl.BACKTRACKS]),
            "fails": int(m[sl.FAILS]),
            "memo_hits": int(m[sl.MEMO_HITS]),
            "stored": int(m[sl.STORED]),
        }

    def paths(self) -> dict[str, list[list[int]]]:
        """The current full cover, each path walked from its first end to its second."""
        cols = self.cols
        out = {}
        for label, (p, q) in self.board.ends.items():
            (pr, pc), (qr, qc) = (p[::-1], q[::-1]) if self.flip else (p, q)
            here, prev, goal = pr * cols + pc, -1, qr * cols + qc
            walk = [here]
            while here != goal:
                step = next(
                    self.nb[here, d]
                    for d in range(4)
                    if self.con[here] & (1 << d) and self.nb[here, d] != prev
                )
                here, prev = int(step), here
                walk.append(here)
            cells = [divmod(v, cols) for v in walk]
            out[label] = [[c, r] if self.flip else [r, c] for r, c in cells]
        return out


def _warm() -> None:
    """Compile (or load from the on-disk cache) the kernel with every branch typed."""
    board = Board(2, 2, (("1", "1"), ("2", "2")))
    for unique in (False, True):
        search = ScanSearch(board, unique=unique)
        search.next_solution(None)
        search.next_solution(None)


class ScanlineNumba(RacingSearch):
    name = "scanline-numba"
    puzzles = ("numberlink",)
    solver = "numba"
    reference = False
    race_nodes = RACE_NODES
    search_nodes = COMPLETE_NODES
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "assume_unique": (False, True),
        "untouched_first": (True, False),
        "order": ("diagonal", "rows"),
        "memo": (True, False),
        "nest": (True, False),
    }

    @classmethod
    def solver_version(cls) -> str:
        return (
            f"puzzle-bench scanline search (numba {numba.__version__}; its CNF backup: "
            f"{version('pysat')})"
        )

    def build(self, instance: Board, limits: Limits) -> ModelSize:
        self.unique = bool(self.option("assume_unique"))
        order, memo = self.option("order"), bool(self.option("memo"))
        self.search = ScanSearch(instance, order, self.unique, memo, bool(self.option("nest")))
        self.untouched = None
        if not self.unique and self.option("untouched_first"):
            self.untouched = ScanSearch(instance, order, True, False, tables=self.search.tables)
        self._reset()
        n = instance.rows * instance.cols
        self.make_partners = lambda: [
            Member(
                "corner_sat",
                CnfSearch(instance, {"assume_unique": True}),
                CORNER_SAT_CONFLICTS,
                False,
            )
        ]
        self.partner_after = PARTNER_AFTER
        if self.untouched is not None:
            seed = limits.seed
            self.make_backups = lambda: [
                Member("backup", PathSearch(instance, False), max(4, BACKUP_WORK // n), True),
                Member("sat", CnfSearch(instance), SAT_CONFLICTS, True),
                Member("fill", FillSearch(instance, seed), FILL_WORK, False),
            ]
            self.backup_after = BACKUP_AFTER
        edges = instance.rows * (instance.cols - 1) + instance.cols * (instance.rows - 1)
        return ModelSize(n_vars=n, n_constraints=edges)


_warm()
