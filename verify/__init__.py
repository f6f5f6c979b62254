"""dpverify's claims layer: run kernels, compare with theory, decide verdicts, draw pictures."""

__version__ = "0.1.0"
