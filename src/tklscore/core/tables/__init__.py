"""Tables and the one group-by engine: loading files, column roles, locating published records,
factorised codes and group ids (every measure groups rows through ``codes``)."""
