"""Markup in what a bot or its owner controls (its name, the path it is run from, the tournament's name and results
file) shows in the report as text, in every page and in the viewer, and no script in it runs (SECURITY.md).

A real two-hand tournament whose entrant is a copy of tests/bots/raw_random.py named ``<img src=x onerror=...>.py``
in a folder whose name is markup too, run from a config there whose name is a script element; then the report of
that config (its path in the page's footer) and of a record file whose player names close the page's script
element. Each page is opened in headless Chromium: each onerror, onmouseover or script would set ``window.pwned``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from configs import write_config
from helpers import RAW_RANDOM, arena_here

from arena.tournament.store import Store
from tests.report.test_build import browser, needs_chromium, open_page

__all__ = ["browser"]  # the module's fixture: one Chromium for these tests

BOT = "<img src=x onerror=window.pwned=1>"
FOLDER = "<b onmouseover=window.pwned=2>bots"
TITLE = "<script>window.pwned=3</script>"
CLOSER = "</script><script>window.pwned=4</script><img src=x onerror=window.pwned=5>"

pytestmark = [pytest.mark.slow, needs_chromium]

# Whether any markup became an element or ran: the flag a handler sets, images and bold text from the names.
PROBE = """
return {
  pwned: window.pwned === undefined ? null : String(window.pwned),
  images: document.querySelectorAll("img").length,
  bold: [...document.querySelectorAll("b")].filter((b) => b.getAttribute("onmouseover") !== null).length,
  handlers: [...document.querySelectorAll("*")]
    .filter((e) => [...e.attributes].some((a) => a.name.startsWith("on") && a.value.includes("pwned"))).length,
  text: document.body.innerText + " " + document.title,
};
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """The report folders: of the tournament's results file, and of a record file with a closing-script name."""
    root = tmp_path_factory.mktemp("untrusted")
    folder = root / FOLDER
    folder.mkdir()
    shutil.copyfile(RAW_RANDOM, folder / f"{BOT}.py")
    config = write_config(  # in the folder: its results file's path, the report's source, holds the markup too
        folder / "t.toml",
        name=TITLE,
        entrants=["random", f"{BOT}.py"],
        games_per_pairing=2,
        games_per_match=2,
        seed=3,
        options={"points_to_win": 3},
    )
    db = config.with_suffix(".db")
    ran = arena_here("tournament", "run", config, "--quiet")
    assert ran.returncode == 0, ran.stderr
    with Store.open(db, create=False) as store:
        records = [record for _, _, record in store.records()]
    assert all(BOT in record["players"] for record in records) and len(records) == 4
    renamed = root / "renamed.jsonl"
    lines = []
    for record in records:
        record = dict(record, players=[CLOSER if p == "random" else p for p in record["players"]])
        lines.append(json.dumps(record) + "\n")
    renamed.write_text("".join(lines))
    out = {"store": root / "report-store", "records": root / "report-records"}
    for source, target in ((config, out["store"]), (renamed, out["records"])):
        built = arena_here("report", source, "-o", target)
        assert built.returncode == 0, built.stderr
    yield out


def pages(out: Path, names: list[str]) -> list[Path]:
    """Every page of the report: the index, the games list (also filtered by each bot), the viewer on each game."""
    found = [out / "index.html", out / "games.html"]
    found += [out / f"games.html?bot={quote(name, safe='')}" for name in names]
    found += [out / f"viewer.html?n={n}" for n in range(4)]
    return found


@pytest.mark.parametrize("source", ["store", "records"])
def test_markup_in_names_and_paths_shows_as_text_in_every_page(
    browser: Any, reports: dict[str, Path], source: str
) -> None:
    out = reports[source]
    names = [BOT, "random"] if source == "store" else [BOT, CLOSER]
    for page in pages(out, names):
        open_page(browser, page)
        seen = browser.execute_script(PROBE)
        assert seen["pwned"] is None, (page.name, seen["pwned"])
        assert (seen["images"], seen["bold"], seen["handlers"]) == (0, 0, 0), page.name
        text = seen["text"]
        assert BOT in text, page.name  # the name itself, as text
        if source == "records":
            assert CLOSER in text, page.name
        elif page.name in ("index.html", "games.html"):
            assert TITLE in text, page.name  # the tournament's name in the title and heading
    if source == "store":  # the footer names the source by its path, markup and all
        open_page(browser, out / "index.html")
        assert f"{FOLDER}/t.toml" in browser.execute_script(PROBE)["text"]


def test_the_viewer_shows_the_names_of_every_seat_and_the_game_title_as_text(
    browser: Any, reports: dict[str, Path]
) -> None:
    open_page(browser, reports["records"] / "viewer.html?n=0")
    title = browser.execute_script("return document.getElementById('game-title').textContent")
    assert BOT in title and CLOSER in title
    seats = browser.execute_script("return [...document.querySelectorAll('#table b')].map((b) => b.textContent)")
    assert sorted(seats) == sorted([BOT, CLOSER])
