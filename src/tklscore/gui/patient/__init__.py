"""The Patient view, mirroring PIA's Patient Data Visualizer."""
