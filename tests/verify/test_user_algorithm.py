"""Run your own algorithm: the documented example through dpverify run --load, and the dataset constructor."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import kernels
from verify import cli, runs

DOC = Path(__file__).resolve().parents[2] / "docs" / "run-your-own-algorithm.md"


@pytest.fixture
def algos_file(tmp_path):
    src = re.search(r"```python\n(# mylab_algos\.py\n.*?)```", DOC.read_text(), re.S).group(1)
    f = tmp_path / "mylab_algos.py"
    f.write_text(src)
    return f


def test_documented_algorithm_through_dpverify_run(algos_file, tmp_path, capsys):
    out = tmp_path / "run"
    rc = cli.main(["run", "mylab.noisy_sgd", "--load", str(algos_file), "--epsilon", "1", "--delta", "1e-5",
                   "--steps", "60", "--trials", "6", "--out", str(out), "--json"])
    assert rc == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    assert doc["algorithm"] == "mylab.noisy_sgd" and doc["problem"] == "mylab.planted"
    pv = doc["privacy"]
    assert pv["accountant_epsilon"] <= 1.0 and pv["noise_multiplier"] > 0.5
    assert pv["mechanism"]["sampling"] == "poisson"
    curve = doc["curve"]["median"]
    assert len(curve) == len(doc["curve"]["steps"]) and curve[-1] < curve[0]  # it learns
    assert (out / "loss_curve.png").is_file() and json.loads((out / "run.json").read_text())["plot"] == "loss_curve.png"
    # same seed, same numbers, through the Python entry point
    again = runs.run("mylab.noisy_sgd", epsilon=1.0, delta=1e-5, steps=60, trials=6).to_dict()
    assert again["final_loss"]["per_trial"] == doc["final_loss"]["per_trial"]
    # on a built-in problem, and its bad input
    assert cli.main(["run", "mylab.noisy_sgd", "--load", str(algos_file), "--problem", "abs_regression", "--steps",
                     "20", "--trials", "2", "--out", str(tmp_path / "r2")]) == 0
    capsys.readouterr()
    assert cli.main(["run", "mylab.noisy_sgd", "--load", str(algos_file), "--problem", "nope"]) == 2
    assert "--problem: must be one of mylab.planted, abs_regression" in capsys.readouterr().err


def test_user_algorithm_contract_and_names():
    from verify.algorithms import algorithm

    with pytest.raises(kernels.InvalidParameter, match="key of your own"):
        algorithm("pagan.mine", problems=("abs_regression",))
    with pytest.raises(kernels.InvalidParameter, match="sampling must be one of"):
        algorithm("mylab.bad", problems=("abs_regression",), sampling="shuffle")

    @algorithm("mylab.wrong_shape", problems=("abs_regression",), private=False)
    def wrong(ds, *, noise_multiplier, steps, batch_size, alpha, rng, log_steps):
        return np.zeros(3)

    with pytest.raises(kernels.InvalidParameter, match="one value per logged step"):
        runs.run("mylab.wrong_shape", steps=10, trials=1)


def test_make_dataset_validates():
    ds = kernels.make_dataset(np.ones((5, 2)), np.zeros(5), loss="absolute", domain="box", radius=2.0)
    assert (ds.n, ds.d, ds.domain, ds.radius) == (5, 2, "box", 2.0)
    for kwargs, name in [(dict(features=[[1.0, np.nan]]), "features"), (dict(features=np.ones((3, 2)), targets=[1]),
                                                                        "targets"),
                         (dict(features=np.ones((3, 2)), loss="squared"), "loss"),
                         (dict(features=np.ones((3, 2)), targets=np.ones(3), loss="linear"), "targets"),
                         (dict(features=np.ones((3, 2)), domain="cube"), "domain"),
                         (dict(features=np.ones((3, 2)), radius=-1), "radius"),
                         (dict(features=np.ones((3, 2)), public=np.ones((2, 3))), "public")]:
        with pytest.raises(kernels.InvalidParameter, match=f"^{name} must be"):
            kernels.make_dataset(**kwargs)
