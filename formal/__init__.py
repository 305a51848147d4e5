"""Formal proofs of irqlab's RTL with SymbiYosys (see docs/VERIFICATION.md).

Each design under proof has a generator (formal/clic.py, formal/tracer.py)
that elaborates the Migen module at a small size, converts it to Verilog and
places a property block (formal/*_props.sv) inside the generated module, with
the `f_*` names the properties use bound to the module's signals by the
generator. formal/sby.py writes the .sby file and runs SymbiYosys (the
WebAssembly yosys of the venv, with the Yices 2 solver of requirements.txt).
`python -m formal` runs every job and prints one line per property.
"""
