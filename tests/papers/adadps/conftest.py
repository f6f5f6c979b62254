"""Fixtures of the :mod:`verify.papers.adadps` tests."""

import pytest

from tests.papers.adadps.support import QuickOutcomes


@pytest.fixture(scope="session")
def quick():
    """The quick outcomes (seed 0) of the claims, each computed once per session when a test first asks for it."""
    return QuickOutcomes()
