"""Benchmarks: ``python -m bench`` runs them all and prints figures that do not depend on a busy machine."""
