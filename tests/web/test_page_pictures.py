"""docs/web/ holds the pictures ``python -m companion.documents.pages`` draws of the table's pages, and no other;
docs/WEB.md shows the table's page and the settings page. (Redrawing them needs Chromium and is not pixel-stable
from one build to the next, so they are not compared here.)"""

from __future__ import annotations

from companion.documents.layers import DOCS_DIR
from companion.documents.pages import VIRTUAL, pictures

REDRAW = "redraw them with: .venv/bin/python -m companion.documents.pages"


def test_docs_web_holds_every_picture_of_the_pages_and_no_other() -> None:
    drawn = {f"{stem}.png" for stem, *_ in pictures()} | {f"{VIRTUAL}.png"}
    assert {path.name for path in (DOCS_DIR / "web").glob("*.png")} == drawn, REDRAW


def test_web_md_shows_the_table_s_page_and_its_settings_page() -> None:
    shown = {
        line.split("](web/", 1)[1].split(")", 1)[0]
        for line in (DOCS_DIR / "WEB.md").read_text("utf-8").splitlines()
        if "](web/" in line
    }
    pages = {page for stem, _, _, (page, _) in pictures() if f"{stem}.png" in shown}
    assert pages == {"/", "/settings"}, shown
