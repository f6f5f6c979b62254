"""DP-SGD in the peer libraries, on :mod:`kernels.dp_sgd`'s dense logistic regression.

Opacus (PyTorch CPU: per-example gradients by hooks, clipping and noise in its ``DPOptimizer``) and
jax-privacy (``jax_privacy.clipping.clipped_grad`` under ``jax.jit``) run the step that
:func:`kernels.dp_sgd.run_dp_sgd` runs: B distinct records, each gradient clipped to ``clip``, the sum plus
N(0, (σ·clip)²·I), divided by B, one SGD step of size ``lr``.  Both are in the optional ``peer`` extra,
installed after PyTorch's CPU build (:data:`PEER_INSTALL`); every function here raises :class:`PeerMissing`
when its library is absent.

:func:`one_step` is the noise-free update of each implementation on the same batch from the same point
(the agreement test); :func:`stepper` returns a callable taking ``k`` noisy steps (the benchmark).
Opacus divides by the gradient norm plus 10⁻⁶ when it clips (its ``clip_factor``), so its update differs
from the exact one by at most ``lr``·10⁻⁶ in norm; jax-privacy clips exactly.
"""

from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from kernels.dp_sgd import LogisticProblem, run_dp_sgd

PEERS = ("opacus", "jax_privacy")
#: how to install the peers, the same words in every hint and page: PyTorch first (`pip install torch==2.13.0`
#: takes its CPU build, as pyproject.toml says beside the ``peer`` extra), then the extra
PEER_INSTALL = "pip install torch==2.13.0 && pip install -e '.[peer]'"
#: Opacus's clipping factor is clip / (‖g‖ + OPACUS_NORM_EPS)
OPACUS_NORM_EPS = 1e-6


class PeerMissing(ImportError):
    """A peer library is not installed (the ``peer`` extra)."""


def _torch():
    try:
        import opacus  # noqa: F401
        import torch
    except ImportError as exc:
        raise PeerMissing(f"{exc.name} is not installed ({PEER_INSTALL})") from exc
    return torch


def _jax():
    try:
        import jax
        import jax_privacy  # noqa: F401
    except ImportError as exc:
        raise PeerMissing(f"{exc.name} is not installed ({PEER_INSTALL})") from exc
    jax.config.update("jax_enable_x64", True)  # float64 problems stay float64
    return jax


def _opacus_setup(problem: LogisticProblem, w0: np.ndarray, batch_size: int, lr: float, clip: float,
                  sigma: float, seed: int):
    torch = _torch()
    from opacus import PrivacyEngine

    dtype = torch.float32 if problem.features.dtype == np.float32 else torch.float64
    torch.manual_seed(seed)
    X = torch.as_tensor(problem.features)
    y = torch.as_tensor(problem.labels)
    model = torch.nn.Linear(problem.d, 1, bias=False).to(dtype)
    with torch.no_grad():
        model.weight.copy_(torch.as_tensor(np.asarray(w0, dtype=problem.features.dtype)).reshape(1, -1))
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=batch_size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, opt, _ = PrivacyEngine().make_private(module=model, optimizer=opt, data_loader=loader,
                                                     noise_multiplier=sigma, max_grad_norm=clip,
                                                     poisson_sampling=False)

    def step(idx):
        opt.zero_grad()
        xb, yb = X[idx], y[idx]
        with warnings.catch_warnings():  # the inputs need no gradient; Opacus's hooks warn about it every step
            warnings.simplefilter("ignore")
            torch.nn.functional.softplus(-yb * model(xb).squeeze(-1)).mean().backward()
        opt.step()

    def weights():
        return model._module.weight.detach().numpy().reshape(-1).copy()

    return torch, step, weights


def _jax_setup(problem: LogisticProblem, w0: np.ndarray, batch_size: int, lr: float, clip: float, sigma: float,
               seed: int):
    jax = _jax()
    import jax.numpy as jnp
    from jax_privacy.clipping import clipped_grad

    X = jnp.asarray(problem.features)
    y = jnp.asarray(problem.labels)
    n = problem.n

    def loss(w, xb, yb):
        return jnp.mean(jax.nn.softplus(-yb * (xb @ w)))

    clipped_sum = clipped_grad(loss, l2_clip_norm=clip, batch_argnums=(1, 2))
    noise_std = sigma * clip

    @jax.jit
    def on_batch(w, idx, key):
        total = clipped_sum(w, X[idx], y[idx])
        if noise_std > 0:
            total = total + noise_std * jax.random.normal(key, w.shape, w.dtype)
        return w - (lr / batch_size) * total

    @jax.jit
    def random_step(w, key):
        k_batch, k_noise, key = jax.random.split(key, 3)
        idx = jax.random.permutation(k_batch, n)[:batch_size]
        return on_batch(w, idx, k_noise), key

    return jax, jnp.asarray(np.asarray(w0, dtype=problem.features.dtype)), on_batch, random_step


def one_step(peer: str, problem: LogisticProblem, w0: np.ndarray, idx: np.ndarray, lr: float,
             clip: float) -> np.ndarray:
    """The noise-free DP-SGD update of ``peer`` ("dpverify", "opacus" or "jax_privacy") on the records ``idx``
    from ``w0``.

    Parameters
    ----------
    peer : str
        "dpverify", "opacus" or "jax_privacy".
    problem : LogisticProblem
        The data.
    w0 : numpy.ndarray
        The starting weights, shape (d,).
    idx : array_like of int
        The batch's record indices.
    lr : float
        The learning rate.
    clip : float
        The per-record clipping norm.

    Returns
    -------
    numpy.ndarray
        The weights after one clipped, noise-free step.

    Raises
    ------
    ValueError
        When ``peer`` is not one of the three.
    """
    idx = np.asarray(idx, dtype=np.int64)
    if peer == "dpverify":
        sub = LogisticProblem(problem.features[idx], problem.labels[idx], problem.sqnorms[idx])
        return run_dp_sgd(sub, steps=1, batch_size=len(idx), lr=lr, clip=clip, sigma=0.0, w0=w0)["w"]
    if peer == "opacus":
        torch, step, weights = _opacus_setup(problem, w0, len(idx), lr, clip, 0.0, 0)
        step(torch.as_tensor(idx))
        return weights()
    if peer == "jax_privacy":
        jax, w, on_batch, _ = _jax_setup(problem, w0, len(idx), lr, clip, 0.0, 0)
        return np.asarray(on_batch(w, jax.numpy.asarray(idx), jax.random.key(0)))
    raise ValueError(f"peer must be dpverify, opacus or jax_privacy (got {peer!r})")


def stepper(peer: str, problem: LogisticProblem, *, batch_size: int, lr: float, clip: float, sigma: float,
            seed: int = 0) -> Callable[[int], None]:
    """A callable taking ``k`` noisy DP-SGD steps of ``peer`` (its own batch sampling and noise) and returning
    when they are done.

    Parameters
    ----------
    peer : str
        "opacus" or "jax_privacy".
    problem : LogisticProblem
        The data.
    batch_size : int
        Records per step.
    lr : float
        The learning rate.
    clip : float
        The per-record clipping norm.
    sigma : float
        The noise multiplier.
    seed : int, optional
        Seed of the peer's sampling and noise.

    Returns
    -------
    callable
        ``run(k)``: takes ``k`` steps from the state the previous call left (weights start at zero).

    Raises
    ------
    ValueError
        When ``peer`` is not "opacus" or "jax_privacy".
    """
    w0 = np.zeros(problem.d, dtype=problem.features.dtype)
    if peer == "opacus":
        torch, step, _ = _opacus_setup(problem, w0, batch_size, lr, clip, sigma, seed)
        gen = torch.Generator().manual_seed(seed)

        def run(k: int) -> None:
            for _ in range(k):
                step(torch.randperm(problem.n, generator=gen)[:batch_size])

        return run
    if peer == "jax_privacy":
        jax, w, _, random_step = _jax_setup(problem, w0, batch_size, lr, clip, sigma, seed)
        state = {"w": w, "key": jax.random.key(seed)}

        def run(k: int) -> None:
            w, key = state["w"], state["key"]
            for _ in range(k):
                w, key = random_step(w, key)
            w.block_until_ready()
            state["w"], state["key"] = w, key

        return run
    raise ValueError(f"peer must be opacus or jax_privacy (got {peer!r})")
