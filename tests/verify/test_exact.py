"""verify.exact: the stacked finite-difference evaluation of adversarial_search."""

import numpy as np
import pytest

from verify import exact


def _slack(x):
    # a smooth, non-separable slack whose minimum is inside the box: the search takes several gradient steps
    return float(np.sum((x - 0.3) ** 2) + np.prod(np.cos(3 * x)) + np.sin(x @ x))


def _slacks(xs):
    return np.array([_slack(x) for x in xs])


def test_adversarial_search_with_a_batch_finds_the_same_point_values_and_count():
    plain = exact.adversarial_search(_slack, 7, (-1.0, 1.0), 3, 11)
    calls = []

    def batch(xs):
        calls.append(len(xs))
        return _slacks(xs)

    fast = exact.adversarial_search(_slack, 7, (-1.0, 1.0), 3, 11, batch=batch)
    assert fast.slack == plain.slack
    assert np.array_equal(fast.example, plain.example)
    assert fast.evaluated == plain.evaluated
    if exact._lbfgsb_takes_workers():  # each gradient's 7 points came in one call
        assert calls and set(calls) == {7}
    else:
        assert not calls


def test_a_batch_that_disagrees_with_the_slack_changes_the_search():
    # the batch is what the gradient is computed from: a wrong one must show (the option is not ignored)
    if not exact._lbfgsb_takes_workers():
        pytest.skip("this SciPy's L-BFGS-B has no workers option")
    plain = exact.adversarial_search(_slack, 4, (-1.0, 1.0), 1, 5)
    wrong = exact.adversarial_search(_slack, 4, (-1.0, 1.0), 1, 5, batch=lambda xs: -_slacks(xs))
    assert wrong.slack != plain.slack or not np.array_equal(wrong.example, plain.example)
