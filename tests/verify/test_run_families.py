"""``dpverify run`` for the algorithms of every paper (verify.runs): end to end, reproducible, calibrated, bad input."""

import json

import numpy as np
import pytest

import kernels
from dpvalidate import InvalidParameter
from verify import cli, runs
from verify.privacy import composed_epsilon, dp_sgd_epsilon, gaussian_epsilon

PAGAN = ("sgd", "adagrad", "dp_sgd", "pasan", "pagan", "pagan_opt", "pdp_sgd")
NEW = [name for name in runs.ALGORITHMS if name not in PAGAN]
PRIVATE = [name for name in NEW if runs.RUNNABLES[name].private]
STEPS = 4  # tiny runs: the point is the plumbing (the kernels have their own tests)
EPS = 2.0  # a non-default ε (the calibration test uses it too, so the searches are shared)


def _run(tmp_path, capsys, name, sub="a"):
    out = tmp_path / sub
    argv = ["run", name, "--problem", runs.RUNNABLES[name].problems[0], "--steps", str(STEPS), "--trials", "2",
            "--seed", "3", "--out", str(out)]
    if runs.RUNNABLES[name].private:
        argv += ["--epsilon", str(EPS)]
    rc = cli.main(argv)
    cap = capsys.readouterr()
    return rc, out, cap


def test_the_table_covers_every_paper_and_names_are_unique():
    assert set(runs.PAPERS) == {"pagan", "adp", "noisy_adagrad", "dp_adam_design", "adadps"}
    assert len(runs.ALGORITHMS) == len(set(runs.ALGORITHMS))
    assert set(PAGAN) <= set(runs.ALGORITHMS)
    import kernels

    for spec in runs.RUNNABLES.values():
        assert spec.problems and set(spec.problems) <= set(kernels.PROBLEM_GENERATORS), spec.name


@pytest.mark.parametrize("name", NEW)
def test_tiny_run_writes_outputs_and_is_reproducible(name, tmp_path, capsys):
    rc, out, cap = _run(tmp_path, capsys, name)
    assert rc == 0, cap.err
    assert (out / "loss_curve.png").is_file() and (out / "loss_curve.png").stat().st_size > 0
    doc = json.loads((out / "run.json").read_text())
    spec = runs.RUNNABLES[name]
    assert doc["algorithm"] == name and doc["paper"] == spec.paper and doc["problem"] == spec.problems[0]
    assert doc["metric"] in runs.METRICS
    assert doc["curve"]["steps"][0] == 0 and doc["curve"]["steps"][-1] == STEPS
    assert len(doc["final_loss"]["per_trial"]) == 2
    assert doc["params"]["steps"] == STEPS and doc["params"]["trials"] == 2 and doc["params"]["seed"] == 3
    assert f"{name} on {spec.problems[0]}" in cap.out
    if spec.private:
        pv = doc["privacy"]
        assert pv["calibration"] == "accountant" and pv["noise_multiplier"] > 0
        assert doc["params"]["epsilon"] == EPS and pv["accountant_epsilon"] <= EPS
        assert "privacy: noise multiplier" in cap.out
    else:
        assert doc["privacy"] is None and doc["params"]["epsilon"] is None
    # the same seed gives the same numbers (everything but the timing)
    rc2, out2, _ = _run(tmp_path, capsys, name, sub="b")
    assert rc2 == 0
    doc2 = json.loads((out2 / "run.json").read_text())
    doc.pop("meta"), doc2.pop("meta")
    assert doc == doc2


def _independent_epsilon(name: str, pv: dict, z: float) -> float | None:
    """The accountant's ε at multiplier z, rebuilt from run.json's mechanism record straight from verify.privacy."""
    mech, delta = pv["mechanism"], pv["delta"]
    paper = runs.RUNNABLES[name].paper
    if paper in ("noisy_adagrad", "dp_adam_design"):  # Gaussian releases, composed by dp-accounting itself
        return gaussian_epsilon(z, delta, mech["releases"], "pld", mech["pld_grid"])
    if paper == "adadps":
        return dp_sgd_epsilon(mech["sampling_rate"], z, mech["steps"], delta, "rdp")
    if name in ("dp_sgd_poly", "dp_sgd_adaptive"):  # α ≡ 1: one phase of the one-draw (Poisson-pair) step
        return composed_epsilon([(mech["sampling_rate"], z, mech["steps"])], delta, "rdp")
    return None  # ADP-SGD: α_t varies, accounted in blocks (checked through RunResult.epsilon_at)


@pytest.mark.parametrize("name", PRIVATE)
def test_calibrated_multiplier_is_tight_from_both_sides(name):
    eps = EPS
    res = runs.run(name, epsilon=eps, steps=STEPS, trials=1, seed=3)
    pv = res.privacy
    z = pv["noise_multiplier"]
    assert res.epsilon_at(z) == pytest.approx(pv["accountant_epsilon"], rel=1e-12)
    assert res.epsilon_at(z) <= eps < res.epsilon_at(0.99 * z)
    indep = _independent_epsilon(name, pv, z)
    if indep is not None:
        assert indep <= eps < _independent_epsilon(name, pv, 0.99 * z)


def test_adp_blocks_bound_the_single_phase_at_the_smallest_alpha():
    """The blocked RDP ε of ADP-SGD lies between all steps at the largest α and all at the smallest."""
    res = runs.run("adp_sgd", epsilon=EPS, steps=STEPS, trials=1, seed=3)
    mech, z, delta = res.privacy["mechanism"], res.privacy["noise_multiplier"], res.privacy["delta"]
    q, T = mech["sampling_rate"], mech["steps"]
    lo = composed_epsilon([(q, mech["alpha_max"] * z, T)], delta, "rdp")
    hi = composed_epsilon([(q, mech["alpha_min"] * z, T)], delta, "rdp")
    assert lo <= res.privacy["accountant_epsilon"] <= hi


def test_a_diverging_trial_is_reported_not_fatal():
    """Scale-then-privatize at a small ε: σC/B ≫ 1 makes v̂ grow geometrically until kernels.dp_adam divides by
    zero; the run keeps every trial, marks the overflowed ones NaN from that round on and says so."""
    res = runs.run("dp_adam_scale_then_privatize", epsilon=0.05, steps=400, trials=2, seed=3)
    assert any("diverged in 2 of 2 trials" in n for n in res.notes)
    assert res.values.shape == (2, runs.log_points(400).size)
    assert np.all(np.isfinite(res.values[:, 0])) and np.all(np.isnan(res.final))


BAD = [
    (["run", "adp_sgd", "--problem", "abs_regression"],
     "--problem: must be one of smooth_nonconvex (got abs_regression)"),
    (["run", "adadps_rmsprop", "--problem", "sparse_linear_regression"],
     "--problem: must be one of zipf_bow_logistic (got sparse_linear_regression)"),
    (["run", "dp_adam", "--problem", "sparse_logistic_1d"], "ALGORITHM: must be one of "),
    (["run", "dp_gd", "--problem", "low_rank_glm", "--epsilon", "-1"], "--epsilon: must be > 0 and finite (got -1)"),
    (["run", "adagrad_full", "--problem", "low_rank_glm", "--epsilon", "1"],
     "--epsilon: must be omitted: adagrad_full is not private (got 1.0)"),
    (["run", "dp_adam_ime", "--problem", "sparse_logistic_1d", "--epsilon", "1e-12", "--steps", "2"],
     "--epsilon: must be large enough for the accountant to certify it"),
    (["run", "dp_gd", "--problem", "low_rank_glm", "--batch-size", "3"],
     "--batch-size: must be omitted for dp_gd (it uses full-batch gradients) (got 3)"),
    (["run", "adadps", "--problem", "sparse_linear_regression", "--batch-size", "5000", "--steps", "2"],
     "--batch-size: must be an integer in [1, n = 1000] (got 5000)"),
    # the adaptive step's accumulator of squared noisy gradients would overflow: the iterate froze, exit 0
    (["run", "pagan", "--epsilon", "1e-300", "--trials", "1"],
     "--epsilon: must be at least 4.573e-153 at delta = 1e-05 for pagan with steps = 1000, batch_size = 70 (a larger "
     "noise's squares overflow float64 in the adaptive step's accumulator, which would freeze the iterate) "
     "(got 1e-300)"),
    (["run", "pasan", "--epsilon", "1e-300", "--trials", "1"], "--epsilon: must be at least "),
    (["run", "pagan_opt", "--epsilon", "1e-160", "--trials", "1"], "--epsilon: must be at least "),
]


@pytest.mark.parametrize("argv, message", BAD, ids=[" ".join(a[1:]) for a, _ in BAD])
def test_bad_input_exit_2_names_the_parameter_and_writes_nothing(argv, message, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(argv + ["--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("dpverify: error: " + message), err
    assert not out.exists()


def test_unknown_algorithm_points_to_the_list(capsys):
    assert cli.main(["run", "adam", "--problem", "abs_regression"]) == 2
    err = capsys.readouterr().err
    assert f"({len(runs.ALGORITHMS)} in all)" in err and "`dpverify run --help` lists them by paper" in err
    assert err.count("\n") == 1


def test_help_lists_algorithms_per_paper(capsys):
    assert cli.main(["run", "--help"]) == 0
    text = capsys.readouterr().out
    for paper, rows in runs.by_paper().items():
        assert f"  {paper}:" in text
        for r in rows:
            assert r.name in text


def test_a_noise_that_would_overflow_the_adaptive_accumulator_is_refused_by_the_kernel():
    """kernels.pagan names the parameter that sets the noise (epsilon, or noise_multiplier given alone); a noise
    just inside the range still runs, finite."""
    from kernels import pagan as kp

    ds = kernels.make_problem("abs_regression", 0)
    with pytest.raises(InvalidParameter, match=r"^noise_multiplier must be at most "):
        kp.make_config("pagan", ds, noise_multiplier=1e300, steps=10)
    with pytest.raises(InvalidParameter, match=r"^epsilon must be at least "):
        kp.make_config("pasan", ds, epsilon=1e-300, delta=1e-5, steps=10)
    kp.make_config("pagan", ds, epsilon=1e-140, delta=1e-5, steps=10)  # far from the limit: accepted
    kp.make_config("dp_sgd", ds, epsilon=1e-300, delta=1e-5, steps=10)  # a constant step has no accumulator
