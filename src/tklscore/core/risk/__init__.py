"""The risk lens: privacy models, re-identification risk, population uniqueness, QI
importance (spec privacy-models.md §1–3) and Orooji–Knapp's record risk D(r)
(disclosure-risk.md Part B), all on the shared group-by engine (core/tables/codes.py)."""

from tklscore.core.risk.measures import Measures, measure_table

__all__ = ["Measures", "measure_table"]
