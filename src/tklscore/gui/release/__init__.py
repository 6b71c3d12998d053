"""The Release view: the source table, column roles, candidate releases."""
