"""Shared memory: how a tile is stored, accessed and swizzled, and what each access costs.

Modules:

* ``access``: the access analysis of a local_load / local_store (vector width, ld/st width,
  ldmatrix/stmatrix, bank conflicts as Triton counts them and as the hardware executes them);
* ``wavefronts``: passes, bank conflicts and wavefronts of one access from its lane addresses;
* ``offsets``: accesses at an affine offset (a subslice's XOR, an added base): the vector,
  conflicts and ldmatrix rows they keep or break, Triton's subslice row rule;
* ``predict``: ``predict_wavefronts``, what sm_90 executes for one access as Nsight Compute
  counts it;
* ``register_to_offset``: the conversion a local_store / local_load performs, register ->
  offset with Triton's vector permutation;
* ``lowering``: Triton's lowerLdSt address arithmetic proved against the layout;
* ``partitions``: gfx1250 LDS partition conflicts (waves ``w``, ``w ^ 1`` meeting in one
  64 KiB partition), beside the bank conflicts;
* ``intel_slm``: Intel SLM bank conflicts of a 16-lane sub-group's scalar accesses (the oneAPI
  GPU Optimization Guide's 16 banks of 4 bytes), with its limits;
* ``swizzle/``: the swizzle's cost, Triton's constructive algorithm, the legacy parameter
  search, optimal synthesis with certificates, and the gfx1250 partitioned layout search.
"""
