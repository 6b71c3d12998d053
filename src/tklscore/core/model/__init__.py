"""The sensitivity-weight models of ``data-model.md``: DPV vocabularies and taxonomy extraction, AHP,
qualitative labels, the tkl-Data Model, and M-Score's and L-Severity's own weight models."""
