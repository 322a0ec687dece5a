"""A screen without a panel: every frame the table draws is written as a PNG into a folder.

``companion run`` uses it when ``display.frames`` (or ``--frames DIR``) names a folder, so the service runs on a
PC with simulated readers and its screen can still be looked at. It is luma's own ``dummy`` device (the same
frame buffer, rotation and mode handling a panel gets) sized like the pin map's OLED; each frame is written
whole under a temporary name and then renamed, so a reader of the folder never sees half a file::

    >>> import tempfile
    >>> from PIL import Image
    >>> folder = Path(tempfile.mkdtemp())
    >>> device = FrameFolder(folder)
    >>> device.display(Image.new("1", device.size))
    >>> sorted(path.name for path in folder.iterdir())
    ['screen-00001.png']
"""

from __future__ import annotations

from pathlib import Path

from luma.core.device import dummy
from PIL import Image

__all__ = ["FrameFolder"]


class FrameFolder(dummy):  # type: ignore[misc]  # luma has no type hints
    """A luma device that writes each frame to ``folder/screen-NNNNN.png``."""

    def __init__(self, folder: Path, width: int = 128, height: int = 64, mode: str = "1") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(width=width, height=height, mode=mode)
        self.folder = folder
        self.frames = 0
        # A panel is blanked when the program ends; here the last frame (the "stopped" screen) is left to see.
        self.persist = True

    def display(self, image: Image.Image) -> None:
        super().display(image)
        self.frames += 1
        path = self.folder / f"screen-{self.frames:05d}.png"
        partial = path.with_suffix(".part")
        self.image.save(partial, "PNG")
        partial.replace(path)
