"""Kernel formats: the contracts and published formats, their cases and references, read by both
the judge (reference role) and the cell (kernel role). Imports neither."""
