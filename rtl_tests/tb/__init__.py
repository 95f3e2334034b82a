"""Testbench pieces: driver, monitor, memory backdoor, model adapter, checker (one job each)."""
