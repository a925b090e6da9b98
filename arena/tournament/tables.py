"""One way to print a table in the formats the CLI offers: aligned text, CSV or Markdown (JSON is each caller's,
since its shape is not a grid)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from tabulate import tabulate

FORMATS = ("table", "csv", "json", "markdown")


def render(headers: Sequence[str], cells: Sequence[Sequence[object]], fmt: str) -> str:
    """The grid as ``table`` (aligned text), ``csv`` (with its header, even when empty) or ``markdown``."""
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(headers)
        writer.writerows(cells)
        return out.getvalue().rstrip("\n")
    return tabulate(cells, headers=list(headers), tablefmt="github" if fmt == "markdown" else "simple")
