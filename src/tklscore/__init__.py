"""tkl-Score Workbench: misuseability scores of a data release (tkl-Score, M-Score, L-Severity)."""

__version__ = "0.1.0"
