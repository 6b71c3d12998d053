"""Files the tool reads and writes: atomic writes, RDF files, bundled resources."""
