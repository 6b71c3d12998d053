"""The Pseudonymization view (seed 004's tool, disclosure-risk.md A6)."""
