"""The misuseability scores of ``scoring.md``: distinguishing factors (k-DF, l-DF, t-DF), weights and W(r),
M-Score, L-Severity, tkl-Score, tkl-Score_max, normalisation, and the explanation of a record."""
