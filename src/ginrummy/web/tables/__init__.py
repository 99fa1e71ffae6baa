"""A match at the table: tables in memory and their registry, the one commit path, moves,
each seat's STATE and its sockets, creating matches, rematches, and the turn clock's arithmetic.
"""
