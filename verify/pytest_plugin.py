"""pytest plugin (entry point ``pytest11``): ``--dpverify-budget quick|full`` for ``verify.testing``."""

from __future__ import annotations

import pytest

from verify import testing


def pytest_addoption(parser):
    """Add ``--dpverify-budget quick|full`` (default quick) to pytest's options.

    Parameters
    ----------
    parser : pytest.Parser
        pytest's option parser.
    """
    group = parser.getgroup("dpverify")
    group.addoption("--dpverify-budget", choices=("quick", "full"), default="quick",
                    help="budget at which verify.testing.assert_verdict runs claims (default quick)")


def pytest_configure(config):
    """Make ``--dpverify-budget`` the default budget of :mod:`verify.testing`.

    Parameters
    ----------
    config : pytest.Config
        The run's configuration.
    """
    testing.DEFAULT_BUDGET = config.getoption("--dpverify-budget")


@pytest.fixture
def dpverify_budget(request) -> str:
    """The --dpverify-budget of this pytest run.

    Parameters
    ----------
    request : pytest.FixtureRequest
        pytest's request object.

    Returns
    -------
    str
        "quick" or "full".
    """
    return request.config.getoption("--dpverify-budget")
