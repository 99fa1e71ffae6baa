"""The web table's operator commands, each ``main(argv)`` a ``ginrummy`` sub-command:
``ginrummy db`` (the schema), ``ginrummy puzzles`` (puzzles into the database) and
``ginrummy accounts`` (the moderator role)."""
