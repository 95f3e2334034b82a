"""The ISA conformance suite: signature tests generated from the spec and isa.semantics, the DUT
plugin interface and the runner (docs/conformance.md)."""

from npusim.conformance.case import TestCase
from npusim.conformance.dut import Dut, DutError, DutResult
from npusim.conformance.registry import load_dut

__all__ = ["Dut", "DutError", "DutResult", "TestCase", "load_dut"]
