"""Playing strangers: quick-match seeks, Glicko-2 ratings of accounts, and the
spectator's view of live public matches.
"""
