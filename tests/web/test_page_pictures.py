"""The pictures of the table's pages in docs/web/ show what ``python -m companion.documents.pages`` draws today, and
docs/WEB.md shows the table's page and the settings page.

A picture is compared with a fresh drawing by the words the page said (kept in the PNG, ``TEXT_KEY``) and by its
width, not pixel by pixel: Chromium draws ``system-ui, sans-serif`` with whatever fonts the machine has, so the
same page is other pixels on another Debian (and the same on one machine from run to run)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from companion.documents.layers import DOCS_DIR
from companion.documents.pages import TEXT_KEY, pictures, write_pages

REDRAW = "redraw them with: .venv/bin/python -m companion.documents.pages"


def said(path: Path) -> tuple[int, str]:
    with Image.open(path) as picture:
        picture.load()
        return picture.width, str(getattr(picture, "text", {}).get(TEXT_KEY))


def test_the_committed_page_pictures_are_up_to_date(tmp_path: Path) -> None:
    written = write_pages(tmp_path)
    assert {path.name for path in (DOCS_DIR / "web").glob("*.png")} == {path.name for path in written}, REDRAW
    for fresh in written:
        width, words = said(fresh)
        assert len(words) > 100, "the page's words are kept in its picture"
        assert said(DOCS_DIR / "web" / fresh.name) == (width, words), f"docs/web/{fresh.name} is stale; {REDRAW}"


def test_web_md_shows_the_table_s_page_and_its_settings_page() -> None:
    text = (DOCS_DIR / "WEB.md").read_text("utf-8")
    shown = {line.split("](web/", 1)[1].split(")", 1)[0] for line in text.splitlines() if "](web/" in line}
    pages = {page for stem, _, _, (page, _) in pictures() if f"{stem}.png" in shown}
    assert pages == {"/", "/settings"}, shown
