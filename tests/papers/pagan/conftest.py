"""Fixtures shared by the tests of :mod:`verify.papers.pagan`."""

import pytest

from verify.papers.pagan import _lower_bound_common, lower_bounds, lower_bounds_l2


@pytest.fixture
def lower_bound_runs_forbidden(monkeypatch):
    """The lower-bound claims' runs forbidden: a check that calls ``_lb_runs`` fails the test (an exact refutation
    must not need them).  Patched in every module that reads it: ``_lower_bound_common`` (``_lb_measured``) and
    ``lower_bounds_l2`` (``proposition2``)."""

    def no_runs(*args, **kwargs):
        raise AssertionError("an exact refutation must skip the runs")

    for module in (_lower_bound_common, lower_bounds, lower_bounds_l2):
        if hasattr(module, "_lb_runs"):
            monkeypatch.setattr(module, "_lb_runs", no_runs)
