"""What anyone may read of a match: its ``ginrummy/1`` record, the fairness proof and
the step-by-step replay.
"""
