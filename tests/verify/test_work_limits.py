"""Work limits checked before allocation, and the Python entry points validating like the command line.

Every case here is refused before anything large is allocated (the tests would otherwise take terabytes),
with one InvalidParameter naming the user's parameter.
"""

import dataclasses

import numpy as np
import pytest

import dpvalidate as V
import kernels
from dpvalidate import InvalidParameter
from theory import noisy_adagrad as tn
from theory import pagan as tp
from theory.numeric import numeric
from verify import cli, runs
from verify.papers import dp_adam_design, pagan

MEMORY = "small enough that the"


@pytest.mark.parametrize("argv, option", [
    (["run", "adp_sgd", "--problem", "smooth_nonconvex", "--steps", "1e12"], "--steps"),
    (["run", "pagan_opt", "--problem", "abs_regression", "--batch-size", "1e9"], "--batch-size"),
    (["run", "noisy_adagrad", "--problem", "low_rank_glm", "--steps", "1e9"], "--steps"),
    (["run", "dp_sgd", "--problem", "abs_regression", "--trials", "1e12"], "--trials"),
])
def test_run_refuses_counts_that_do_not_fit(argv, option, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(argv + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"dpverify: error: {option}: must be {MEMORY}")
    assert "it would need" in err and "this machine has" in err
    assert not out.exists()


@pytest.mark.parametrize("call, name", [
    (lambda: runs.run("adp_sgd", steps=10**12), "steps"),
    (lambda: runs.run("noisy_adagrad", steps=10**9), "steps"),
    (lambda: runs.run("dp_adam_ime", steps=10**12), "steps"),
    (lambda: runs.run("sgd", trials=10**12), "trials"),
    (lambda: runs.run("pagan_opt", batch_size=10**9), "batch_size"),
    (lambda: pagan.rate_picture([1.0, 0.5], n=[100], trials=10**12), "trials"),
    (lambda: kernels.run_algorithm("pagan_opt", kernels.make_problem("abs_regression", 0), batch_size=10**9,
                                   epsilon=1, delta=1e-5), "batch_size"),
    (lambda: dp_adam_design.negative_fraction(d=10**9, batch_size=64, sigma=1.0, clip_norm=1.0, beta2=0.99,
                                              steps=500), "trials, d"),
])
def test_python_entry_points_refuse_counts_that_do_not_fit(call, name):
    with pytest.raises(InvalidParameter) as info:
        call()
    assert info.value.name == name
    assert str(info.value).startswith(f"{name} must be {MEMORY}") and "this machine has" in str(info.value)


def test_adadps_huge_steps_blames_steps():
    with pytest.raises(InvalidParameter) as info:
        runs.run("adadps", steps=10**12)
    assert info.value.name == "steps"


def test_memory_message_names_need_and_machine():
    with pytest.raises(InvalidParameter) as info:
        V.memory("n, d", 10**6, 10**6)
    msg = str(info.value)
    assert msg.startswith("n, d must be small enough that the 1000000 × 1000000 array they set fits in memory")
    assert "it would need 7.28 TiB" in msg and "one array may take at most 8 GiB" in msg
    avail = V.available_memory()
    assert avail is None or avail > 0
    V.memory("n, d", 10, 10)  # small arrays pass


# --------------------------------------------------------------------------------------
# rate_picture: every parameter, named as the user gave it
# --------------------------------------------------------------------------------------
RATE_BAD = {
    "trials=0": (dict(trials=0), "trials"),
    "c=-1": (dict(c=-1), "c"),
    "c=nan": (dict(c=float("nan")), "c"),
    "c=inf": (dict(c=float("inf")), "c"),
    "c=1e12": (dict(c=1e12), "c, n"),
    "n=[]": (dict(n=[]), "n"),
    "n=[1e308]": (dict(n=[1e308]), "n"),
    "n=5": (dict(n=5), "n"),
    "n=[1]": (dict(n=[1]), "n"),
    "sigma=[]": (dict(sigma=[]), "sigma"),
    "sigma=[1e308, 1e308]": (dict(sigma=[1e308, 1e308]), "sigma"),
    "sigma=[1e-308, 1]": (dict(sigma=[1e-308, 1]), "sigma"),
    "sigma=[nan]": (dict(sigma=[float("nan")]), "sigma"),
    "sigma=[-1]": (dict(sigma=[-1.0]), "sigma"),
    "seed=-1": (dict(seed=-1), "seed"),
    "epsilon=0": (dict(epsilon=0), "epsilon"),
    "setting=x": (dict(setting="x"), "setting"),
}


@pytest.mark.parametrize("case", list(RATE_BAD))
def test_rate_picture_validates_like_the_command_line(case):
    kw, name = RATE_BAD[case]
    args = dict(sigma=[1.0, 0.5], n=[100], trials=2)
    args.update(kw)
    with pytest.raises(InvalidParameter) as info:
        pagan.rate_picture(**args)
    assert info.value.name == name
    assert "dataset features" not in str(info.value) and "ellipsoid" not in str(info.value)


# --------------------------------------------------------------------------------------
# theory
# --------------------------------------------------------------------------------------
def test_psd_sqrt_pinv_refuses_a_non_symmetric_matrix():
    with pytest.raises(ValueError, match=r"^S must be a symmetric matrix"):
        tn.psd_sqrt_pinv(np.array([[1.0, 2.0], [0.0, 1.0]]))
    X = np.random.default_rng(0).standard_normal((40, 7))
    root, pinv = tn.psd_sqrt_pinv(X @ X.T)  # a computed Gram matrix: symmetric to rounding
    assert np.allclose(root @ root, X @ X.T, atol=1e-8)


def test_numeric_evaluators_refuse_nan():
    f = numeric(tp.lemma3_1_steps())
    with pytest.raises(ValueError, match=r"^c must be a number, not NaN \(got nan\)"):
        f(b=1, c=float("nan"), n=3)
    with pytest.raises(ValueError, match=r"^n must be a number, not NaN \(got 1 NaN entries\)"):
        f(b=1, c=1.0, n=np.array([3.0, np.nan]))
    assert float(f(b=1, c=1.0, n=3)) == 9.0
    assert float(numeric(tp.lemma3_1_steps(), backend="mpmath")(b=1, c=1, n=3)) == 9.0


def test_non_contiguous_features_message_says_what_is_wrong():
    ds = kernels.make_problem("abs_regression", 0)
    bad = dataclasses.replace(ds, features=np.asfortranarray(ds.features))
    with pytest.raises(InvalidParameter) as info:
        kernels.run_algorithm("sgd", bad)
    msg = str(info.value)
    must, got = msg.split(" (got ", 1)
    assert "C-contiguous" in must and "not C-contiguous" in got
