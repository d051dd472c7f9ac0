"""Heart to Heart: the all-hearts pyramid solitaire. Pure rules, no I/O."""
