"""Charts read at a glance: nothing clipped at any width `bench plot` offers or the report's,
labels name only options off their defaults, and each chart compares configurations over
the instances they share (``bench.analysis.groups``). Real matplotlib renders, no stubs."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from bench.analysis import charts, groups
from bench.analysis.labels import encoding_defaults, slug
from bench.analysis.style import PAPER, REPORT, paper_rc
from bench.analysis.tables import with_config

# an option sweep of `all` as it labels today: long, many configurations, several sizes
CONFIGS = [f"degree-sat[backend={b},card={c}]" for b in ("cadical195", "minisat22", "glucose42")
           for c in ("totalizer", "seqcounter", "cardnetwrk", "sortnetwrk")]  # fmt: skip
# labels as they read before defaults were left out: every option spelled
SPELLED = [f"degree-sat[backend={b},card=binomial,colour=binary,cut=both,phases=none,"
           f"repair=join,windows=0]" for b in ("glucose4", "cadical153", "minisat22")]  # fmt: skip
SIZES = ["5x5", "7x7", "9x9", "10x10", "12x12", "15x15"]


def _instances(configs: list[str], per_size: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for k, config in enumerate(configs):
        for s, size in enumerate(SIZES):
            for i in range(per_size):
                time_s = float(0.001 * 3 ** (s + 0.1 * k) * rng.uniform(0.5, 2))
                status = "solved" if time_s < 20 else "timeout"
                rows.append({"puzzle": "numberlink", "instance": f"b{size}-{i}", "size": size,
                             "config": config, "encoding": config.split("[")[0],
                             "status": status, "time_s": time_s if status == "solved" else np.nan,
                             "q1_s": time_s, "q3_s": time_s, "samples": 1, "time_limit_s": 20.0,
                             "n_vars": 10.0, "n_constraints": 20.0, "wall_s": time_s})  # fmt: skip
    return pd.DataFrame(rows)


def _clipped(figure: plt.Figure) -> list[str]:
    """The drawn texts (titles, tick labels in view, legends, colour bars) whose extent
    leaves the figure by more than a pixel."""
    figure.savefig(io.BytesIO(), format="png")  # lays out and draws, as saving to a file does
    renderer = figure.canvas.get_renderer()
    width, height = figure.bbox.width, figure.bbox.height
    out = []
    for artist in figure.get_default_bbox_extra_artists():
        box = artist.get_window_extent(renderer)
        if isinstance(artist, plt.Axes):
            box = artist.get_tightbbox(renderer)
        if box is None or not artist.get_visible() or box.width == 0:
            continue
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            name = artist.get_text() if hasattr(artist, "get_text") else type(artist).__name__
            out.append(f"{name!r} at x {box.x0:.0f}..{box.x1:.0f} of {width:.0f}, "
                       f"y {box.y0:.0f}..{box.y1:.0f} of {height:.0f}")  # fmt: skip
    return out


LAYOUTS = {"report": REPORT, **PAPER}


@pytest.mark.parametrize("names", ["many", "spelled"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("kind", ["cactus", "scaling", "par2", "scatter", "panels"])
def test_no_text_leaves_the_figure(kind: str, layout: str, names: str) -> None:
    configs = CONFIGS if names == "many" else SPELLED
    data = _instances(configs)
    chosen = LAYOUTS[layout]
    with paper_rc(chosen):
        if kind == "cactus":
            figure = charts.cactus(data, "numberlink", chosen)
        elif kind == "scaling":
            figure = charts.scaling(data, "numberlink", chosen, fits={})
        elif kind == "par2":
            figure = charts.par2_bars(data, "numberlink", chosen)
        elif kind == "scatter":
            figure = charts.scatter(data, "numberlink", configs[0], configs[-1], chosen)
        else:
            half = len(configs) // 2
            panels = [("nl-sat-card (24 instances)", data[data["config"].isin(configs[:half])]),
                      ("nl-sat-backend (24 instances)", data[data["config"].isin(configs[half:])]),
                      ("nl-other", data[data["config"] == configs[0]])]  # fmt: skip
            figure = charts.case_panels(panels, "numberlink", chosen)
        try:
            assert _clipped(figure) == [], f"{kind} at {layout}: clipped text"
        finally:
            plt.close(figure)


def test_labels_name_only_options_off_their_defaults() -> None:
    """A record carries every option; the label keeps those off the encoding's default."""
    from models import registry

    defaults = registry.get_encoding("numberlink", "degree-sat").full_options()
    swept = defaults | {"card": "totalizer"}
    runs = pd.DataFrame({
        "puzzle": ["numberlink"] * 3, "encoding": ["degree-sat", "degree-sat", "flow-cpsat"],
        "options": [defaults, swept, {"variant": "base"}], "threads": [1, 1, 1],
        "status": ["solved"] * 3, "build_s": [0.1] * 3, "solve_s": [0.1] * 3,
    })  # fmt: skip
    labelled = with_config(runs)
    assert list(labelled["config"]) == ["degree-sat", "degree-sat[card=totalizer]", "flow-cpsat"]


def test_defaults_read_from_source_match_the_encodings() -> None:
    """Reporting reads defaults without importing a solver; they agree with the classes."""
    from models import registry

    for puzzle, encodings in registry.encodings().items():
        read = encoding_defaults(puzzle)
        for name, cls in encodings.items():
            assert read[name] == cls.full_options(), (puzzle, name)


def test_file_names_from_labels_never_cut_a_word() -> None:
    label = "degree-sat[backend=glucose4,card=binomial,colour=binary,cut=both,phases=none]"
    stem = slug(label, 44)
    assert stem == "degree-sat_backend-glucose4_card-binomial"
    assert all(word in label.replace("=", "-") for word in stem.split("_"))


def test_main_comparison_and_cases_apart() -> None:
    """Defaults on the shared boards form the main block; a sweep on three of them and an
    encoding run alone on one board each get their own group over their own instances."""
    data = _instances(["degree-sat", "flow-cpsat", "routes-cpsat"])
    swept = _instances(["degree-sat[card=totalizer]"]).query(
        "instance in ['b5x5-0', 'b5x5-1', 'b7x7-0']"
    )
    alone = _instances(["frontier-search"]).query("instance == 'b5x5-0'")
    instances = pd.concat([data, swept, alone], ignore_index=True)
    case = {"degree-sat[card=totalizer]": "nl-sat-card", "frontier-search": "nl-frontier"}
    runs = instances.assign(case=[case.get(c, "nl-main") for c in instances["config"]])
    main, *apart = groups.chart_groups(runs, instances, "numberlink")
    assert main.configs == ("degree-sat", "flow-cpsat", "routes-cpsat")
    assert len(main.instances) == len(SIZES) * 4 and main.cases == ("nl-main",)
    by_key = {g.key: g for g in apart}
    assert set(by_key) == {"nl-sat-card", "nl-frontier"}
    assert by_key["nl-sat-card"].configs == ("degree-sat", "degree-sat[card=totalizer]")
    assert by_key["nl-sat-card"].instances == {"b5x5-0", "b5x5-1", "b7x7-0"}
    assert by_key["nl-frontier"].instances == {"b5x5-0"}
    assert "3 instances they all ran" in groups.describe(by_key["nl-sat-card"], instances)


def test_trend_chart_lines_never_repeat_a_look() -> None:
    """Twelve cases across commits: twelve distinct colour/dash/marker looks and twelve
    distinct colours, all the report's palette or its shades (the default colour cycle
    repeated after ten)."""
    from bench.analysis.history import trend_chart
    from bench.analysis.style import distinct_colours

    table = pd.DataFrame(
        [{"case": f"case-{k}", "commit": c, "first_run": f"2026-12-01T0{i}", "solve_s": 0.1 * (k + 1)}
         for k in range(12) for i, c in enumerate(("aaa", "bbb"))]
    )  # fmt: skip
    figure = trend_chart(table)
    try:
        lines = figure.axes[0].get_lines()
        looks = {(line.get_color(), line.get_linestyle(), line.get_marker()) for line in lines}
        assert len(lines) == 12 and len(looks) == 12
        colours = [line.get_color().lower() for line in lines]
        assert len(set(colours)) == 12 and set(colours) <= set(distinct_colours(12))
    finally:
        plt.close(figure)
