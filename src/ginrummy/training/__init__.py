"""Training with the coach: positions for the analysis board, puzzles made from real
matches, and practising one's own marked decisions (docs/training.md).

Everything here starts from one seat's view (R11): a position is read into a
:class:`~ginrummy.view.View` (:mod:`.position`), evaluated by the same evaluator the
review grades with (:mod:`.analysis`), and a puzzle is a view whose best move clears the
margin rule (:mod:`.puzzles`), tagged by theme (:mod:`.themes`).
"""
