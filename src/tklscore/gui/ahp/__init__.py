"""The AHP view: Saaty sliders, the reciprocal matrix, priorities and consistency."""
