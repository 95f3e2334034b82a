"""The DUT plugins shipped in npusim: model (npusim functional), timing (npusim with cycles),
external (a simulator driven through files). The rtl DUT is rtl_tests/tb/conformance_dut.py."""
