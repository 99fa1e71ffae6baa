"""The coach at the web table: game reviews and hints computed in worker processes,
stored once, and shown to each viewer only what it may see.
"""
