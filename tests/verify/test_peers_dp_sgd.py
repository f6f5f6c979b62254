"""DP-SGD in dpverify, Opacus and jax-privacy: the same update on the same batch (peers from the ``peer`` extra),
and the benchmark row that compares their speed."""

import numpy as np
import pytest

from kernels.dp_sgd import dense_logistic
from verify import peers as P
from verify.bench import run_benchmarks


def _installed(peer):
    try:
        (P._torch if peer == "opacus" else P._jax)()
    except P.PeerMissing as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("peer", P.PEERS)
def test_peer_computes_our_update_on_the_same_batch_without_noise(peer, dtype):
    _installed(peer)
    prob = dense_logistic(512, 1000, seed=0, dtype=dtype)
    w0 = (np.random.default_rng(1).standard_normal(1000) * 0.05).astype(dtype)
    idx = np.random.default_rng(2).permutation(512)[:64]
    lr = 0.5
    ours = P.one_step("dpverify", prob, w0, idx, lr, 1.0).astype(np.float64)
    theirs = P.one_step(peer, prob, w0, idx, lr, 1.0).astype(np.float64)
    step = np.linalg.norm(ours - w0)
    assert step > 1e-2  # a real step, most records clipped
    # rounding: a few units of the dtype's roundoff per coordinate over the (d + B)-term sums that form it
    u = np.finfo(dtype).eps / 2
    rounding = 8 * (1000 + 64) * u * (np.linalg.norm(w0) + step)
    # Opacus clips with clip / (‖g‖ + 1e-6): each clipped record moves by at most clip·1e-6/‖g‖ ≤ 1e-6, so the
    # update by at most lr·1e-6
    stabiliser = lr * P.OPACUS_NORM_EPS if peer == "opacus" else 0.0
    assert np.linalg.norm(theirs - ours) <= rounding + stabiliser


def test_bench_row_reports_peers_limit_fraction_and_why_a_peer_is_missing(tmp_path):
    (row,) = run_benchmarks(tmp_path, quick=True, names=("dp_sgd_d1e4_f32",))
    assert row["kernel"] > 0 and row["reference"] > 0 and 0 < row["limit_fraction"]
    assert set(row["peers"]) == set(P.PEERS) and row["minimum_bytes_per_step"] == (256 + 2) * 10**4 * 4
    # the limit fraction pairs each repeat's time with the copy measured right after it (median over the repeats)
    bws, secs = row["stream_copy_bytes_per_s_beside_each_repeat"], row["seconds_each_repeat"]
    assert len(bws) == len(secs) == 3 and row["stream_copy_bytes_per_s"] == max(bws)
    paired = [row["minimum_bytes_per_step"] * row["steps_per_repeat"] / (b * t) for b, t in zip(bws, secs)]
    assert row["limit_fraction"] == pytest.approx(float(np.median(paired)), rel=1e-12)
    assert row["kernel"] == pytest.approx(row["steps_per_repeat"] / min(secs), rel=1e-12)
    for name, ratio in row["peers"].items():
        if ratio is None:
            assert f"{name} skipped" in row["peer_note"]
        else:
            assert ratio == pytest.approx(row["kernel"] / row["peer_rates"][name])
