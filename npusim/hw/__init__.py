"""Hardware cost models: the Target -> RTL parameter map (rtl_params) and the relative area of
the RTL units from their Yosys synthesis (area)."""
