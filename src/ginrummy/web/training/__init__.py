"""Training at the web table: puzzles (next by rating and theme, answers that move Glicko-2
ratings), a player's own reviewed mistakes as private puzzles, and the analysis board's
evaluations, computed in worker processes of their own."""
