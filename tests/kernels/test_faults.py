"""kernels.faults: the one-arm fault (``only_methods``) hits only the named methods; the default is unchanged."""

import numpy as np
import pytest

from kernels import adadps as ka
from kernels import faults


@pytest.fixture(scope="module")
def zipf():
    return ka.zipf_bow_logistic(n=300, d=40, n_test=100, n_users=8, public_fraction=0.05, doc_len=8.0, seed=1)


CKW = dict(lr=0.3, clip=0.5, sigma=0.8, batch_size=12, steps=20, side_info="frequency", trials=1, seed=3,
           options=ka.CentralOptions(n_log=2))
FKW = dict(local_lr=0.5, clip=0.3, sigma=0.5, users_per_round=3, rounds=8, local_steps=2, local_batch=4, seed=2)


def test_hooks_one_arm():
    assert faults.Faults().only_methods == ()
    with faults.inject(noise_scale=3.0, stepsize_scale=10.0, only_methods=("a",)):
        faults.clear_visited()
        assert faults.noise_scale("b") == 1.0 and faults.stepsize_scale("b") == 1.0
        assert faults.noise_scale() == 1.0 and faults.noise_factor(0.5) == 1.0  # a wrapper naming no method
        assert faults.visited() == frozenset()  # excluded runs do not visit the hook
        assert faults.noise_factor(0.5, method="a") == 3.0 and faults.stepsize_scale(method="a") == 10.0
        assert faults.visited() == {"noise_scale", "stepsize_scale"}
    with faults.inject(noise_scale=3.0, stepsize_scale=10.0):  # default: every run, named or not
        assert faults.noise_scale("b") == 3.0 and faults.noise_scale() == 3.0 and faults.stepsize_scale("a") == 10.0


@pytest.mark.parametrize("fault", [dict(noise_scale=3.0), dict(stepsize_scale=10.0)])
def test_central_one_arm(zipf, fault):
    base = {m: ka.run_central(zipf, m, **CKW)["w"] for m in ("dp_sgd", "adadps_fixed")}
    with faults.inject(only_methods=("adadps_fixed",), **fault):
        one = {m: ka.run_central(zipf, m, **CKW)["w"] for m in ("dp_sgd", "adadps_fixed")}
    with faults.inject(**fault):
        both = {m: ka.run_central(zipf, m, **CKW)["w"] for m in ("dp_sgd", "adadps_fixed")}
    np.testing.assert_array_equal(one["dp_sgd"], base["dp_sgd"])  # the other arm bit for bit
    np.testing.assert_array_equal(one["adadps_fixed"], both["adadps_fixed"])  # the named arm: the full fault
    assert not np.array_equal(one["adadps_fixed"], base["adadps_fixed"])
    assert not np.array_equal(both["dp_sgd"], base["dp_sgd"])


def test_central_default_unchanged(zipf):
    base = ka.run_central(zipf, "adadps_fixed", **CKW)
    with faults.inject(only_methods=()):  # an empty list with no factor fault: the same run bit for bit
        again = ka.run_central(zipf, "adadps_fixed", **CKW)
    np.testing.assert_array_equal(base["w"], again["w"])
    np.testing.assert_array_equal(base["loss"], again["loss"])


@pytest.mark.parametrize("fault", [dict(noise_scale=3.0), dict(stepsize_scale=10.0)])
def test_federated_one_arm(zipf, fault):
    assert ka.federated_method_name("frequency") == "fed_adadps"
    assert ka.federated_method_name("ones", "adam") == "dp_fedadam"
    runs = {"fed_adadps": dict(side_info="frequency", options=ka.FederatedOptions(n_log=2)),
            "dp_fedadam": dict(side_info="ones", options=ka.FederatedOptions(server="adam", n_log=2))}
    base = {k: ka.run_federated(zipf, **FKW, **kw)["w"] for k, kw in runs.items()}
    with faults.inject(only_methods=("fed_adadps",), **fault):
        one = {k: ka.run_federated(zipf, **FKW, **kw)["w"] for k, kw in runs.items()}
    with faults.inject(**fault):
        both = {k: ka.run_federated(zipf, **FKW, **kw)["w"] for k, kw in runs.items()}
    np.testing.assert_array_equal(one["dp_fedadam"], base["dp_fedadam"])
    np.testing.assert_array_equal(one["fed_adadps"], both["fed_adadps"])
    assert not np.array_equal(one["fed_adadps"], base["fed_adadps"])


@pytest.mark.parametrize("fault", [dict(noise_scale=3.0), dict(stepsize_scale=10.0)])
def test_dp_adam_one_arm(fault):
    from kernels import dp_adam as kd

    rng = np.random.default_rng(5)
    x = rng.standard_normal(60)
    y = np.where(rng.random(60) < 1 / (1 + np.exp(-x)), 1.0, -1.0)
    cfgs = {k: kd.RoundConfig(variant="ime", optimizer="adagrad", lr=0.3, beta1=0.0, xi=1e-8, sigma=0.5, floor=1.0,
                              ime_split=split) for k, split in (("ime", True), ("ime_for_free", False))}
    cfgs["post_processing"] = kd.RoundConfig(optimizer="adagrad", lr=0.3, beta1=0.0, xi=1e-8, sigma=0.5)
    assert {k: c.fault_name() for k, c in cfgs.items()} == {k: k for k in cfgs}

    def runs():
        return {k: kd.run_logistic_1d(x, y, c, trials=2, seed=1) for k, c in cfgs.items()}

    base = runs()
    with faults.inject(only_methods=("ime_for_free",), **fault):
        one = runs()
    with faults.inject(**fault):
        both = runs()
    for k in ("ime", "post_processing"):
        np.testing.assert_array_equal(one[k], base[k])
        assert not np.array_equal(both[k], base[k])
    np.testing.assert_array_equal(one["ime_for_free"], both["ime_for_free"])
    assert not np.array_equal(one["ime_for_free"], base["ime_for_free"])
