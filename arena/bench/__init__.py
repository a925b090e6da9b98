"""Benchmarks that measure the arena against a reference side by side, in one run."""
