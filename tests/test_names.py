"""Names are data in every writer (issue 58): arbitrary case, instance and option names fed to
the console, Markdown, LaTeX, HTML report, publish site and history chart writers.

Each property runs 200 examples on a one-row table (the writers called directly); one test
sweeps for real with cases named ``[/bold]`` and ``[l](x)`` and publishes three instances
whose names folded to one page before.
"""

from __future__ import annotations

import html.parser
import io
import re
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from bench.analysis import publish, report
from bench.analysis.formats import latex_table, markdown_table
from bench.analysis.history import trend_chart
from bench.analysis.names import chart_text, file_stem, visible
from bench.commands.results import table_text
from bench.progress import SweepProgress, problems, summary_table
from bench.record import RunRecord
from tests.conftest import run_cli

#: the characters every format reads as markup, often, among any others
_SPECIAL = list("[]()`*_|\\<>&#$%{}~^!-=+.,:;'\"/ \n\t\r\x00\x1b\x85\u2028")
_KNOWN = ["[/bold]", "[l](x)", "a b.txt", "a<b.txt", "a_b.txt", "$x$", "1. a", "- a",
          "    code", "`", "\\", "<script>x</script>", "&amp;", "_h"]  # fmt: skip
NAMES = st.one_of(
    st.sampled_from(_KNOWN),
    st.text(
        st.one_of(st.sampled_from(_SPECIAL), st.characters(exclude_categories=["Cs"])),
        min_size=1,
        max_size=24,
    ),
)
#: names as file names may hold them (bytes not UTF-8: lone surrogates); no DataFrame can
RAW_NAMES = st.one_of(
    NAMES,
    st.text(st.one_of(st.sampled_from(_SPECIAL), st.characters(categories=["Cs"])), min_size=1,
            max_size=8),
)  # fmt: skip
EXAMPLES = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class _Html(html.parser.HTMLParser):
    """Every element's tag, attributes and text (its children's included), in order."""

    VOID = ("meta", "img", "br", "hr", "link")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[list] = []  # [tag, attrs, text]
        self.open: list[list] = []

    @property
    def tags(self) -> list[tuple[str, dict]]:
        return [(tag, attrs) for tag, attrs, _ in self.elements]

    def handle_starttag(self, tag, attrs):
        element = [tag, dict(attrs), ""]
        self.elements.append(element)
        if tag not in self.VOID:
            self.open.append(element)

    def handle_endtag(self, tag):
        if any(e[0] == tag for e in self.open):
            while self.open.pop()[0] != tag:
                pass

    def handle_data(self, data):
        for element in self.open:
            element[2] += data

    def text_of(self, tag: str) -> list[str]:
        """The text of each ``tag`` element, in order."""
        return [text for t, _, text in self.elements if t == tag]


#: a page's frame, around what its writer put in
_PAGE = {"html", "head", "meta", "title", "style", "body"}


def _parse(text: str) -> _Html:
    parser = _Html()
    parser.feed(text)
    parser.close()
    return parser


def _record(name: str, option: str) -> RunRecord:
    return RunRecord(run_id="r1", case=name, puzzle="knights_tour", instance=name,
                     size="3x4", encoding="warnsdorff", options={"method": option},
                     status="wrong", wall_s=0.5, build_s=0.1, solve_s=0.2, time_limit_s=1.0,
                     error=name)  # fmt: skip


# --- console and progress line (rich) -------------------------------------------------


@EXAMPLES
@given(name=RAW_NAMES, option=NAMES)
def test_console_writers_show_names_as_they_are(name: str, option: str) -> None:
    """The progress line (plain and live), the summary table, the problem lines and the
    results table print the name as it is (control characters as escapes): never a
    MarkupError, never a name eaten as a tag."""
    out = io.StringIO()
    console = Console(file=out, width=100_000, color_system=None, force_terminal=False)
    planned = SimpleNamespace(case=name, puzzle="knights_tour", encoding="warnsdorff",
                              instance=name)  # fmt: skip
    progress = SweepProgress(2, 0, name, console=console)
    with progress:
        progress.started(planned)
        progress.skipped(planned, "a limit")
    assert f"[1/2] {visible(name)}: knights_tour warnsdorff {visible(name)}: skipped" in (
        out.getvalue()
    )
    live = io.StringIO()
    terminal = Console(file=live, width=400, color_system=None, force_terminal=True)
    with SweepProgress(2, 0, name, console=terminal) as shown:
        shown.started(planned)
    assert visible(name)[-20:] in live.getvalue()

    name = name.encode("utf-8", "replace").decode()  # from here on: stored, so UTF-8
    records = [_record(name, option), _record(name, option + "x")]
    console.print(summary_table(records, "r1", 1.0))
    for line in problems(records):
        console.print(line, markup=False, highlight=False)
    text = out.getvalue()
    assert f"[method={visible(option)}]" in text  # the option's value, in the config label
    assert f"wrong: knights_tour warnsdorff {visible(name)} (seed 0" in text
    frame = pd.DataFrame([r.to_row() for r in records])
    assert "run r1: 2 runs" in table_text(frame, "r1", wide=False)  # its cells fold: no markup


# --- Markdown tables, and the report's HTML made from them -----------------------------

_TABLE_TAGS = {"table", "thead", "tbody", "tr", "th", "td"}


@EXAMPLES
@given(name=NAMES, header=NAMES)
def test_markdown_table_cells_hold_the_name_and_no_markup(name: str, header: str) -> None:
    """Rendered as the report renders Markdown, the cell's text is the name (table cells are
    trimmed, so its ends' white space aside) and no tag but the table's own appears."""
    table = pd.DataFrame([[name, 1.5]], columns=[header, "time s"])
    text = markdown_table(table)
    assert len(text.splitlines()) == 3  # header, rule, one row: no line broken by a name
    page = _parse(report._html(text + "\n", Path("/nonexistent")))
    assert {tag for tag, _ in page.tags} <= _TABLE_TAGS | _PAGE
    assert page.text_of("td")[:2] == [visible(name).strip(), "1.5"]
    assert page.text_of("th")[0] == visible(header).strip()


@EXAMPLES
@given(name=NAMES, option=NAMES)
def test_report_text_and_captions_show_names_without_markup(name: str, option: str) -> None:
    """The report's own sentences (a board it could not draw) and image captions: the HTML
    shows the name in a code span or as text, with no link, emphasis or raw tag from it."""
    runs = pd.DataFrame([{
        "puzzle": "knights_tour", "instance": f"/nonexistent/{name}", "status": "solved",
        "solution": {"tour": []}, "size": "3x4", "config": f"warnsdorff[method={option}]",
    }])  # fmt: skip
    boards = report._boards(runs, "knights_tour", [])
    caption = f"{name} by warnsdorff[method={option}]"
    boards.images.append((caption, file_stem(name) + ".png"))
    page = _parse(report._html(report._markdown([boards]), Path("/nonexistent")))
    tags = {tag for tag, _ in page.tags}
    assert tags <= {"h1", "h2", "ul", "li", "code", "p", "img"} | _PAGE, tags
    assert any(f"/nonexistent/{visible(name)}" in c for c in page.text_of("code"))
    (alt,) = [attrs["alt"] for tag, attrs in page.tags if tag == "img"]
    assert alt == visible(caption)


# --- LaTeX ---------------------------------------------------------------------------

_LATEX_DECODE = {
    r"\textbackslash{}": "\\", r"\&": "&", r"\%": "%", r"\$": "$", r"\#": "#", r"\_": "_",
    r"\{": "{", r"\}": "}", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^",
    r"\textless{}": "<", r"\textgreater{}": ">", r"\textbar{}": "|", "{[}": "[", "{]}": "]",
    "{*}": "*", r"\textasciigrave{}": "`", r"\textquotesingle{}": "'", r"\textquotedbl{}": '"',
    "{}": "",
}  # fmt: skip
_LATEX_TOKEN = re.compile("|".join(re.escape(k) for k in sorted(_LATEX_DECODE, key=len)[::-1]))


def _unlatex(cell: str) -> str:
    """What TeX prints for a cell, refusing any special character outside an escape."""
    out, at = [], 0
    for match in _LATEX_TOKEN.finditer(cell):
        plain = cell[at : match.start()]
        assert not set(plain) & set("\\&%$#_{}~^[]*<>|`'\""), cell
        assert "--" not in plain and ",," not in plain, cell  # would print as one glyph
        out += [plain, _LATEX_DECODE[match.group()]]
        at = match.end()
    assert not set(cell[at:]) & set("\\&%$#_{}~^[]*<>|`'\""), cell
    return "".join([*out, cell[at:]])


@EXAMPLES
@given(name=NAMES, header=NAMES)
def test_latex_table_escapes_every_special(name: str, header: str) -> None:
    """One line per row, cells split only at our ``&``, and each cell, read as TeX reads
    it, is the name."""
    text = latex_table(pd.DataFrame([[name, 2.0]], columns=[header, "time s"]), caption=name)
    lines = text.splitlines()
    head, row = lines[lines.index(r"\toprule") + 1], lines[lines.index(r"\midrule") + 1]
    for line, first in ((head, header), (row, name)):
        assert line.endswith(r" \\")
        cells = re.split(r"(?<!\\) & ", line[: -len(r" \\")])
        assert len(cells) == 2, line
        assert _unlatex(cells[0]) == visible(first)
    caption = next(x for x in lines if x.startswith(r"\caption{"))
    assert _unlatex(caption[len(r"\caption{") : -1]) == visible(name)


# --- the publish site ------------------------------------------------------------------


@EXAMPLES
@given(label=NAMES, counter=NAMES)
def test_publish_pages_show_the_label_as_text(label: str, counter: str) -> None:
    """A case page and the index: the title, heading and link text are the label, the
    link opens the case's own page, and no tag comes from a name."""
    series = pd.DataFrame([{"commit": "abc", "date": "2026-01-01", "status": "solved",
                            "runs": 1, "solve": 1.0, "build": 0.5, "counter": 3.0}])  # fmt: skip
    marks = pd.DataFrame([{"commit": "abc", "aspect": "solve", "reason": label}])
    page = _parse(publish._case_page(label, "<svg></svg>", series, counter, marks))
    assert page.text_of("title") == [visible(label)]
    assert page.text_of("h1") == [visible(label)]
    assert visible(counter) in page.text_of("th")
    assert f"solve: {visible(label)}" in page.text_of("li")[0]
    assert {t for t, _ in page.tags} <= {"meta", "title", "style", "p", "a", "h1", "h2", "svg",
                                          "ul", "li", "code", "table", "tr", "th", "td"}  # fmt: skip
    name = publish.page_name(label)
    data = pd.DataFrame({"machine": [label]})
    index = _parse(publish._index_page([(label, name, series.iloc[0], counter, 1)], ["abc"], data))
    links = [unquote(attrs["href"]) for tag, attrs in index.tags if tag == "a"]
    assert links == [f"cases/{name}"] and index.text_of("a") == [visible(label)]


@EXAMPLES
@given(names=st.lists(RAW_NAMES, min_size=2, max_size=6, unique=True))
def test_distinct_names_never_share_a_file(names: list[str]) -> None:
    """Pages, chart and board files: a different name is a different file, on a file system
    that folds case too, and every one is a plain file name."""
    for make in (publish.page_name, file_stem):
        files = [make(n) for n in names]
        assert len({f.lower() for f in files}) == len(names), files
        for f in files:
            assert re.fullmatch(r"[A-Za-z0-9._+~-]+", f) and not f.startswith("."), f


# --- the history chart -------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")  # any Unicode: some lack one
@EXAMPLES
@given(name=NAMES)
def test_history_chart_labels_are_the_case_names(name: str) -> None:
    """The trend chart's legend names the case as written: no mathtext from ``$``, no
    entry hidden by a leading ``_``, no exception while laid out."""
    table = pd.DataFrame([
        {"case": name, "commit": c, "solve_s": 1.0 + k, "commit_date": "",
         "first_run": pd.Timestamp(2026, 1, k + 1)} for k, c in enumerate(["c1", "c2"])
    ], dtype=object)  # fmt: skip
    # object columns: Arrow string kernels would start a thread pool in this process, which
    # later forks runs (tests in the same worker)
    figure = trend_chart(table)
    try:
        (shown,) = figure.axes[0].get_legend().get_texts()
        assert shown.get_text() == chart_text(name if len(name) < 70 else name[:67] + "...")
        assert not shown._preprocess_math(shown.get_text())[1]  # not read as mathtext
    finally:
        plt.close(figure)


# --- the command line, end to end ---------------------------------------------------------


def test_a_sweep_with_markup_in_its_names_runs_resumes_and_publishes(tmp_path: Path) -> None:
    """A real sweep whose cases are named ``[/bold]`` and ``[l](x)`` (was: exit 3, internal
    fault: MarkupError; the link's text vanished) and whose instances ``a b.txt``,
    ``a<b.txt`` and ``a_b.txt`` got one publish page among three (two links opened the
    wrong case): every name printed as it is, the resume too; three pages, each link to its
    own case."""
    source = Path("instances/knights_tour/3x10.txt").read_text()
    files = ["a b.txt", "a<b.txt", "a_b.txt"]
    for name in files:
        (tmp_path / name).write_text(source)
    (tmp_path / "s.toml").write_text(
        "[suite]\nrepeats = 1\ntime_limit_s = 20\n"
        f'[[cases]]\nname = "[/bold]"\npuzzle = "knights_tour"\nencodings = ["warnsdorff"]\n'
        f'instances = ["{tmp_path / files[0]}"]\n'
        f'[[cases]]\nname = "[l](x)"\npuzzle = "knights_tour"\nencodings = ["warnsdorff"]\n'
        f'instances = ["{tmp_path / files[1]}", "{tmp_path / files[2]}"]\n'
    )
    store = str(tmp_path / "b.sqlite")
    done = run_cli("run", "--suite", str(tmp_path / "s.toml"), "--store", store)
    assert done.returncode == 0, done.stderr
    assert f"[/bold]: knights_tour warnsdorff {tmp_path / 'a b.txt'}: solved" in done.stderr
    assert f"[l](x): knights_tour warnsdorff {tmp_path / 'a<b.txt'}: solved" in done.stderr
    run_id = re.search(r"run id: (\S+)", done.stdout).group(1)
    again = run_cli("run", "--resume", run_id, "--store", store)
    assert again.returncode == 0 and "0 to run" in again.stdout, again.stderr

    site = tmp_path / "site"
    done = run_cli("publish", store, "--out", str(site))
    assert done.returncode == 0, done.stderr
    index = _parse((site / "index.html").read_text())
    links = [attrs["href"] for tag, attrs in index.tags if tag == "a"]
    labels = index.text_of("a")
    assert len(links) == len(set(links)) == 3 and len(list((site / "cases").iterdir())) == 3
    for label, link in zip(labels, links, strict=True):
        assert label.startswith("knights_tour/warnsdorff/")
        page = _parse((site / link).read_text())
        assert page.text_of("h1") == [label]  # the link opens its own case
    assert sorted(label.rsplit("/", 1)[1] for label in labels) == sorted(files)
