"""Bitmap fonts for the OLED (see LICENSE.txt)."""
