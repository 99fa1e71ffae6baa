"""Accounts: signing up and in, sessions stored as hashes, the CSRF rule for a cookie's
changes, and claiming a guest's seats into an account.
"""
