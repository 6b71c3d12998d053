"""The Scores view: summary, per-record table, charts."""
