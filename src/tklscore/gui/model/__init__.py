"""The tkl-Data Model view: the model tree, the DPV browser, alignment."""
