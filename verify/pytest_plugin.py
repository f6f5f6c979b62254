"""pytest plugin (entry point ``pytest11``): ``--dpverify-budget quick|full`` for ``verify.testing``."""

from __future__ import annotations

import pytest

from verify import testing


def pytest_addoption(parser):
    group = parser.getgroup("dpverify")
    group.addoption("--dpverify-budget", choices=("quick", "full"), default="quick",
                    help="budget at which verify.testing.assert_verdict runs claims (default quick)")


def pytest_configure(config):
    testing.DEFAULT_BUDGET = config.getoption("--dpverify-budget")


@pytest.fixture
def dpverify_budget(request) -> str:
    """The --dpverify-budget of this pytest run."""
    return request.config.getoption("--dpverify-budget")
