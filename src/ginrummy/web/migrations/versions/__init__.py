"""The schema revisions, oldest first (``revNNNN_*.py``); see :mod:`ginrummy.web.migrations`."""
