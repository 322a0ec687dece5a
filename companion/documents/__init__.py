"""The tools that build the project's documents: the wiring diagrams and play mats of ``hardware/``.

They sit on top of everything else (``docs/EXTENDING.md``, "Layers"): they read the pin map and draw with the
screens' font, and nothing of the table imports them. ``python -m companion.documents`` redraws them all.
"""
