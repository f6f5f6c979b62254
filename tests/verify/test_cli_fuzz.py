"""Hypothesis fuzzing of the command line: any argument vector ends in exit 0 (with its output written)
or exit 2 with one line naming the parameter — never a traceback, never exit 1, never half-written output."""

import io
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from verify import cli

ALGOS = ["sgd", "adagrad", "dp_sgd", "pasan", "pagan", "pagan_opt", "pdp_sgd",
         "adp_sgd", "adp_sgd_adaptive", "dp_sgd_poly", "dp_sgd_adaptive",
         "noisy_adagrad", "adagrad_full", "dp_gd",
         "dp_adam_post_processing", "dp_adam_ime", "dp_adam_bias_correction", "dp_adam_scale_then_privatize",
         "adadps", "adadps_rmsprop", "adadps_adam", "adadps_adagrad", "adadps_dp_sgd", "adadps_dp_adam",
         "adadps_dp_rmsprop", "adadps_dp_r_pub"]
PROBLEMS = ["abs_regression", "linear_subgaussian", "sign_mean", "smooth_nonconvex", "low_rank_glm",
            "sparse_logistic_1d", "sparse_linear_regression", "zipf_bow_logistic"]
junk = st.sampled_from(["", "nan", "inf", "-inf", "1e999", "abc", "0x10", "1.5e", " ", "-0", "None", "∞"])
# valid values are drawn about as often as all the invalid kinds together, so both paths get exercised
good_reals = st.sampled_from(["1", "0.5", "1e-3", "1e3", "1e-12", "0.3"])
reals = st.one_of(good_reals, good_reals, good_reals, st.floats(allow_nan=True, allow_infinity=True).map(repr), junk,
                  st.sampled_from(["0", "-1"]))
good_ints = st.integers(1, 4).map(str)
ints = st.one_of(good_ints, good_ints, good_ints, st.integers(-3, 0).map(str), junk, st.sampled_from(["2.5", "1e2"]))
names = lambda valid: st.one_of(st.sampled_from(valid), st.sampled_from(valid), st.text(max_size=12), junk)  # noqa: E731

PARAM_NAMES = ("ALGORITHM", "--problem", "--epsilon", "--delta", "--trials", "--seed", "--steps", "--batch-size",
               "--alpha", "epsilon", "delta", "noise_multiplier", "subspace_rank", "batch_size", "argument",
               "the following arguments are required")


@st.composite
def run_argv(draw):
    argv = ["run", draw(names(ALGOS))]
    if draw(st.booleans()):
        argv += ["--problem", draw(names(PROBLEMS))]
    for flag, strat in (("--epsilon", reals), ("--delta", reals), ("--trials", ints), ("--seed", ints),
                        ("--steps", ints), ("--batch-size", ints), ("--alpha", reals)):
        if draw(st.booleans()):
            argv += [flag, draw(strat)]
    return argv


def _call(argv, out_dir):
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        rc = cli.main(argv + ["--out", str(out_dir)])
    return rc, out.getvalue(), err.getvalue()


@settings(max_examples=80)
@given(run_argv())
@example(["run", "pagan", "--problem", "abs_regression", "--epsilon", "1", "--delta", "1e-5", "--trials", "2",
          "--steps", "3"])
@example(["run", "sgd", "--problem", "sign_mean", "--epsilon", "1"])
@example(["run", "pagan", "--problem", "abs_regression", "--epsilon", "1e-3", "--delta", "0.5", "--steps", "2"])
def test_run_never_crashes_and_names_the_bad_parameter(argv):
    # keep accepted runs short: cap the work the fuzzer may ask for
    argv = [a if not (argv[i - 1] in ("--steps", "--trials") and a.isdigit() and int(a) > 4) else "4"
            for i, a in enumerate(argv)]
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(tmp) / "out"
        rc, out, err = _call(argv, out_dir)
        event(f"exit {rc}")
        assert "Traceback" not in err
        assert rc in (0, 2), (argv, rc, err)
        if rc == 2:
            lines = [ln for ln in err.splitlines() if ln.strip()]
            assert lines and lines[-1].startswith("dpverify") and "error" in lines[-1], err
            assert any(p in lines[-1] for p in PARAM_NAMES), lines[-1]
            assert not (out_dir / "run.json").exists()  # nothing written that looks complete
        else:
            assert (out_dir / "run.json").is_file() and (out_dir / "loss_curve.png").is_file()


@settings(max_examples=60)
@given(st.lists(st.one_of(st.sampled_from(["claims", "verify", "bench", "--paper", "--budget", "--seed", "--json",
                                           "--workers", "pagan", "adp", "full", "medium", "-1", "pagan.nope",
                                           "pagan.eq7", "--scheduler", ""]),
                          st.text(max_size=8)), min_size=1, max_size=5))
@example(["verify", "--paper", "adp", "--budget", "full"])
@example(["verify", "--workers", "0"])
@example(["claims", "--paper", "nope"])
def test_other_commands_never_crash(argv):
    """Validation of claims/verify/bench: the work itself is replaced by a stub (it is tested elsewhere), so any
    vector that passes validation returns 0 at once; everything else must be exit 2 with one clean line."""
    from verify import engine

    with tempfile.TemporaryDirectory() as tmp, \
            mock.patch.object(engine, "run_claims", lambda *a, **k: engine.Results()), \
            mock.patch("verify.bench.run_benchmarks", lambda *a, **k: []), \
            mock.patch("verify.bench_cli.run_cli_benchmarks", lambda *a, **k: []):
        err, out = io.StringIO(), io.StringIO()
        with redirect_stderr(err), redirect_stdout(out):
            rc = cli.main(argv + (["--out", tmp] if argv[0] in ("verify", "bench") else []))
        assert "Traceback" not in err.getvalue()
        assert rc in (0, 2), (argv, rc, err.getvalue())
        if rc == 2:
            last = [ln for ln in err.getvalue().splitlines() if ln.strip()][-1]
            assert last.startswith("dpverify") and "error" in last, last
