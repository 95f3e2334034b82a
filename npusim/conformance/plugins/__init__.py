"""The DUT plugins shipped with the suite: model (npusim functional), timing (npusim with cycles),
rtl (rtl/npu_core.v under cocotb and Icarus), external (a simulator driven through files)."""
