"""Translation validation: prove what an installed Triton emits for layout-carrying operations.

The modules: ``harness`` (one kernel that exercises each operation of a TTGIR module),
``sim`` (the simulator: reads the emitted LLVM IR and runs every thread of the CTA on tagged
values; it imports nothing else of llverify), ``checks`` (each op's outputs checked exactly
against its meaning, and the verdicts), ``validate`` (the API the CLI calls: build the
harness, compile it with :mod:`llverify.triton.compile`, execute, check), ``dumped``
(artifacts Triton dumped: the memory safety of the kernel itself), ``provenance`` (the release
that produced a dump, and the one that validates its TTGIR), ``relayout`` (whether the
compiling release re-laid out a harness: its cases are then not applicable), ``settle``
(violations about different values proved equal, replayed different, or left open),
``launches`` (the launch arguments Inductor or a run recorded, bound to a kernel's parameters)
and ``batch`` (every kernel of a directory: a process pool, time limits, progress, the
summary).  docs/validation.md explains the method.
"""
