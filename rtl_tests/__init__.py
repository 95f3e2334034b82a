"""cocotb co-verification of the RTL units against the npusim model, bit- and cycle-exact."""
