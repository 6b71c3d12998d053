"""Releases: how a published table is defined (row selections) and, for the release designer,
how a source table is transformed into one."""
