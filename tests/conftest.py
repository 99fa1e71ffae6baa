"""Test-wide settings: property tests never fail on timing (this machine is shared and
noisy; speed is measured by `ginrummy bench`, not asserted), and CI prints how to
reproduce any failure."""

import os

from hypothesis import settings

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")
