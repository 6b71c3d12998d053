"""The Risk view: privacy models, attacker models, per-record risk and Orooji–Knapp D(r) of the current release."""
