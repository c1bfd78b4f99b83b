"""Graph mode: compiles `construct` from its Python source. `support` is the table of what it accepts."""
