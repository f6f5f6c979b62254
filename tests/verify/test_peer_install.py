"""One instruction installs the peer libraries: the hints of bench and verify.peers, the README and the docs agree."""

import sys
import tomllib
from pathlib import Path

import pytest

from verify import bench, peers

ROOT = Path(__file__).resolve().parents[2]


def test_the_instruction_pins_the_torch_of_the_peer_extra():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["peer"]
    (pin,) = [req for req in extra if req.startswith("torch==")]
    assert peers.PEER_INSTALL == f"pip install {pin} && pip install -e '.[peer]'"


@pytest.mark.parametrize("page", ["README.md", "docs/audits.md", "docs/gpu-and-performance.md"])
def test_pages_give_the_same_instruction(page):
    text = (ROOT / page).read_text()
    assert peers.PEER_INSTALL in text
    assert text.count("'.[peer]'") == text.count(peers.PEER_INSTALL), "a page gives another peer instruction"


def test_missing_peer_hints_give_the_instruction(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch fails as on a machine without it
    monkeypatch.setitem(sys.modules, "opacus", None)
    monkeypatch.setitem(sys.modules, "jax_privacy", None)
    rate, note = bench._opacus_dp_sgd_rate(None, 1, 1, 0.1, 1.0, 1.0, 1)
    assert rate is None and note.endswith(f"is not installed ({peers.PEER_INSTALL})")
    for get in (peers._torch, peers._jax):
        with pytest.raises(peers.PeerMissing, match="is not installed") as exc:
            get()
        assert str(exc.value).endswith(f"({peers.PEER_INSTALL})")
