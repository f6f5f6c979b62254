"""Fixtures of the tests of :mod:`verify.papers.dp_adam_design`."""

import pytest

from verify.papers import dp_adam_design


def _check(name: str):
    """The claim check ``name`` (e.g. ``"section3_1"``) of whichever of the pack's modules defines it."""
    for module in (dp_adam_design.survey, dp_adam_design.geometry, dp_adam_design.negative_estimates,
                   dp_adam_design.experiments):
        if hasattr(module, name):
            return getattr(module, name)
    raise LookupError(f"no dp_adam_design module defines {name!r}")


@pytest.fixture(scope="module")
def quick():
    """``quick(name)``: the claim check ``name`` run at the quick budget and seed 0, once per test module."""
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = _check(name)("quick", 0)
        return cache[name]

    return get
