"""Moves that nobody at the table makes: the computer's seat (a driver of bots in worker
processes, its turns under a claim) and the clock's safe move when a seat runs out of time.
"""
