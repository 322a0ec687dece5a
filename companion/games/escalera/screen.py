"""The Escalera scoreboard: the game's name and whose turn, then the last card laid, large."""

from __future__ import annotations

from PIL import ImageDraw

from companion.games.escalera import KIND, EscaleraView
from companion.ui.screens import WIDTH, header_footer, put, register_screen

__all__ = ["draw_scoreboard"]


def draw_scoreboard(draw: ImageDraw.ImageDraw, view: EscaleraView, *, language: str = "es", message: str = "") -> None:
    whose = f"{'Turn' if language == 'en' else 'Turno'}: {view.turn + 1}"
    header_footer(draw, (KIND.title(language), whose), (message, ""))
    put(draw, (0, 24), view.top or "-", "bold", WIDTH, align="center")


register_screen(EscaleraView, draw_scoreboard)
