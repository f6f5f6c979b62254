"""Shared test configuration: hypothesis profiles and a matplotlib backend with no display.

Profiles (choose with DPVERIFY_HYPOTHESIS_PROFILE): ``ci`` (default; derandomised,
no deadline) and ``fuzz`` (many examples).
"""

import os

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", deadline=None, max_examples=5000, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("DPVERIFY_HYPOTHESIS_PROFILE", "ci"))
