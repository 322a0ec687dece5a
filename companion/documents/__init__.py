"""The tools that build the project's documents: the wiring diagrams, assembly pictures and play mats of
``hardware/``, the picture of the code's layers in ``docs/``.

They sit on top of everything else (``docs/EXTENDING.md``, "Layers"): they read the pin map and draw with the
screens' font, and nothing of the table imports them. ``python -m companion.documents`` redraws them all; a test
fails when a committed one is out of date.
"""
