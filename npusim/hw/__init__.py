"""Hardware cost models: the Target -> RTL parameter map (rtl_params), area in mm^2 at 45 nm
fitted to Yosys synthesis of the RTL (area, cell_lib, area_fit.json) and the energy of a run
(energy)."""
