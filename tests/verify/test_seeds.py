"""verify.child_seed: the one way claims derive sub-seeds (deterministic, distinct, accepted by the kernels)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import dpvalidate
import kernels
import verify
from verify import child_seed


def test_public_and_deterministic_within_a_process():
    assert "child_seed" in verify.__all__
    a = child_seed(0, "pagan.figure1", "tune", 2, 3)
    assert a == child_seed(0, "pagan.figure1", "tune", 2, 3)
    assert isinstance(a, int) and not isinstance(a, bool)
    assert 0 <= a < 2 ** 63


def test_deterministic_across_processes():
    """No hash(): a fresh interpreter (another PYTHONHASHSEED) gives the same value."""
    code = "from verify import child_seed; print(child_seed(5, 'adp.theorem4.2', 'x', -3, 7))"
    env_seeds = ("0", "12345")
    outs = set()
    for hs in env_seeds:
        env = dict(os.environ, PYTHONHASHSEED=hs)
        outs.add(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                env=env).stdout.strip())
    assert outs == {str(child_seed(5, "adp.theorem4.2", "x", -3, 7))}


def test_pinned_value():
    """The encoding is part of the results' reproducibility: changing it changes every claim's streams."""
    assert child_seed(0, "pagan.figure1", 1) == 2589777320736579165


def test_distinct_for_neighbouring_inputs():
    seen = {}
    for seed in range(4):
        for cid in ("a.b", "a.c", "a.bb", "ab"):
            for parts in ((), (0,), (1,), (7,), (0, 7), (7, 0), (70,), (-1,), ("0",), ("x",), ("x", 0),
                          (2 ** 32,), (0, 1), (1, 0), (0, 0), (2 ** 40, 1)):
                key = (seed, cid, parts)
                v = child_seed(seed, cid, *parts)
                assert v not in seen, (key, seen.get(v))
                seen[v] = key
    # the collision of seed * 7 + i (seed 0, i = 7 vs seed 1, i = 0) is gone
    assert child_seed(0, "x", 7) != child_seed(1, "x", 0)
    # words of a big int are not confused with separate parts
    assert child_seed(0, "x", 2 ** 32) != child_seed(0, "x", 0, 1)
    assert child_seed(2 ** 32, "x") != child_seed(0, "x", 1)


def test_numpy_integers_are_ints():
    assert child_seed(np.int64(3), "x", np.int32(4)) == child_seed(3, "x", 4)


def test_streams_are_independent_looking():
    a = np.random.default_rng(child_seed(0, "x", 0)).standard_normal(2000)
    b = np.random.default_rng(child_seed(0, "x", 1)).standard_normal(2000)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.15


def test_accepted_by_kernels():
    s = child_seed(3, "pagan.figure1", "data")
    ds = kernels.make_problem("abs_regression", seed=s)
    out = kernels.run_algorithm("pagan", ds, steps=3, batch_size=4, alpha=1.0, trials=1, seed=child_seed(3, "y"),
                                epsilon=1.0, delta=1e-5)
    assert np.all(np.isfinite(out.losses))
    np.random.default_rng(s)
    dpvalidate.integer("seed", s, 0)


@pytest.mark.parametrize("seed", [-1, -2 ** 40])
def test_negative_seed_refused(seed):
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        child_seed(seed, "x")


@pytest.mark.parametrize("seed", [1.0, "1", True, None])
def test_non_int_seed_refused(seed):
    with pytest.raises(TypeError, match="seed must be an integer"):
        child_seed(seed, "x")


@pytest.mark.parametrize("cid, exc", [("", ValueError), (None, TypeError), (3, TypeError), (b"x", TypeError)])
def test_bad_claim_id_refused(cid, exc):
    with pytest.raises(exc, match="claim_id"):
        child_seed(0, cid)


@pytest.mark.parametrize("part", [1.5, 2.0, True, np.bool_(False), None, (1, 2), b"x"])
def test_non_int_part_refused(part):
    with pytest.raises(TypeError, match="part 1 must be an int or a str"):
        child_seed(0, "x", 0, part)
