"""The services a process talks to besides its clients: the database (through ``store``),
the broker between processes, and the rate limits counted in them.
"""
