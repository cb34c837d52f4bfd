"""A sweep's chart (``firefight sweep --chart``): each outcome against the first varied field,
one line per value of the second; exact figures as filled dots on a solid line, sampled ones as
open dots with their 95 % interval. matplotlib (the ``lab`` extra; docs/building.md, "Balance
lab"): PNG and SVG as it draws them, HTML as a page holding the SVG and the table, nothing
loaded from elsewhere."""

from __future__ import annotations

import csv
import html
import io
import math
from typing import Any

from firefight.errors import FirefightError
from firefight.sweep import figure

COLUMNS = 3  # panels a row
MAX_PANELS = 24


def require() -> None:
    """matplotlib is there, or an error naming ``--chart`` (checked before a sweep runs)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise FirefightError("--chart needs matplotlib: pip install 'firefight[lab]'",
                             fields=[("chart", "matplotlib is not installed")],
                             code="missing_dependency") from None


def _panels(result: dict[str, Any]) -> list[str]:
    first = result["points"][0]
    labels = list(first["outcomes"])
    if first["shots_until_incapacitated"].get("distribution"):
        labels.append("shots")
    return labels[:MAX_PANELS]


def draw(result: dict[str, Any]) -> Any:
    """The chart as a matplotlib ``Figure`` (no pyplot: no window, no global state)."""
    require()
    from matplotlib.figure import Figure

    fields = [v["field"] for v in result["vary"]]
    xs = result["vary"][0]["values"]
    numeric = all(isinstance(x, int | float) and not isinstance(x, bool) for x in xs)
    where = {repr(x): (x if numeric else i) for i, x in enumerate(xs)}
    lines = result["vary"][1]["values"] if len(fields) > 1 else [None]
    panels = _panels(result)
    rows = math.ceil(len(panels) / COLUMNS)
    fig = Figure(figsize=(4.2 * COLUMNS, 3.1 * rows + 0.8), layout="constrained")
    axes = fig.subplots(rows, COLUMNS, squeeze=False).flatten()
    for ax, label in zip(axes, panels, strict=False):
        for j, line in enumerate(lines):
            mine = [p for p in result["points"]
                    if line is None or repr(p["values"][fields[1]]) == repr(line)]
            name = None if line is None else f"{fields[1]} = {line}"
            colour = f"C{j % 10}"
            if label == "shots":
                _shots(ax, mine, fields[0], where=where, colour=colour, name=name)
                continue
            x = [where[repr(p["values"][fields[0]])] for p in mine]
            values = [figure(p["outcomes"][label]) for p in mine]
            y = [v for v, _ in values]
            ax.plot(x, y, color=colour, linewidth=1.2, label=name)
            for xi, p, (v, exact) in zip(x, mine, values, strict=True):
                if exact:
                    ax.plot([xi], [v], "o", color=colour, markersize=4)
                else:
                    low, high = p["outcomes"][label]["interval95"]
                    ax.errorbar([xi], [v], yerr=[[v - low], [high - v]], fmt="o",
                                color=colour, mfc="white", markersize=4, capsize=2)
        if label != "shots":
            ax.set_ylim(bottom=0, top=min(1.02, max(ax.get_ylim()[1], 0.05)))
            ax.set_ylabel("share of engagements")
        if label != "shots":
            ax.set_title(label, fontsize=10)
        ax.set_xlabel(fields[0])
        if not numeric:
            ax.set_xticks(range(len(xs)), [str(x) for x in xs], rotation=30, ha="right",
                          fontsize=7)
        ax.grid(alpha=0.3)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    if len(lines) > 1:
        fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center",
                   ncols=min(len(lines), 6), fontsize=8)
    fig.suptitle(f"{result['ruleset']}: {result['n']:,} engagements a point (seed "
                 f"{result['seed']}); filled: exact, open: sampled with 95 % interval",
                 fontsize=10)
    return fig


def _shots(ax: Any, mine: list[dict[str, Any]], field: str, *, where: dict[str, Any],
           colour: str, name: str | None) -> None:
    """The mean shots until incapacitated (of the chains that ended within the limit)."""
    pts = [(where[repr(p["values"][field])], p["shots_until_incapacitated"].get("mean"))
           for p in mine]
    pts = [(x, y) for x, y in pts if y is not None]
    ax.plot([x for x, _ in pts], [y for _, y in pts], "o-", color=colour, mfc="white",
            markersize=4, linewidth=1.2, label=name)
    ax.set_ylabel("mean shots (sampled)")
    ax.set_title("shots until incapacitated", fontsize=10)


def render(result: dict[str, Any], fmt: str) -> bytes:
    """The chart as PNG, SVG or an HTML page (the SVG and the figures' table)."""
    import matplotlib

    # SVG text as text (searchable, smaller), not as paths.
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig = draw(result)
        buf = io.BytesIO()
        return _save(fig, buf, fmt, result)


def _save(fig: Any, buf: io.BytesIO, fmt: str, result: dict[str, Any]) -> bytes:
    if fmt == "png":
        fig.savefig(buf, format="png", dpi=110)
        return buf.getvalue()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    if fmt == "svg":
        return svg
    from firefight.sweep import to_csv

    rows = list(csv.reader(io.StringIO(to_csv(result))))
    table = "\n".join(
        "<tr>" + "".join(f"<{tag}>{html.escape(cell)}</{tag}>" for cell in row) + "</tr>"
        for tag, row in (("th" if i == 0 else "td", r) for i, r in enumerate(rows)))
    title = html.escape(f"firefight sweep: {result['ruleset']}, "
                        + " × ".join(v["field"] for v in result["vary"]))
    text = svg.decode()
    body = text[text.index("<svg"):]
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title}</title><style>body{{font-family:sans-serif}}"
            f"table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ccc;"
            f"padding:2px 4px}}</style></head><body><h1>{title}</h1>\n{body}\n"
            f"<table>\n{table}\n</table></body></html>\n").encode()
