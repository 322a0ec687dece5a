"""The pictures of the table's pages in docs/web/ are the ones ``python -m companion.documents.pages`` draws today
(headless Chromium draws them the same, pixel for pixel, from one run to the next), and docs/WEB.md shows the
table's page and the settings page."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageChops

from companion.documents.layers import DOCS_DIR
from companion.documents.pages import pictures, write_pages

REDRAW = "redraw them with: .venv/bin/python -m companion.documents.pages"


def test_the_committed_page_pictures_are_up_to_date(tmp_path: Path) -> None:
    written = write_pages(tmp_path)
    assert {path.name for path in (DOCS_DIR / "web").glob("*.png")} == {path.name for path in written}, REDRAW
    for fresh in written:
        committed = DOCS_DIR / "web" / fresh.name
        difference = ImageChops.difference(Image.open(committed).convert("RGB"), Image.open(fresh).convert("RGB"))
        assert difference.getbbox() is None, f"{committed} is stale; {REDRAW}"


def test_web_md_shows_the_table_s_page_and_its_settings_page() -> None:
    text = (DOCS_DIR / "WEB.md").read_text("utf-8")
    shown = {line.split("](web/", 1)[1].split(")", 1)[0] for line in text.splitlines() if "](web/" in line}
    pages = {page for stem, _, _, (page, _) in pictures() if f"{stem}.png" in shown}
    assert pages == {"/", "/settings"}, shown
