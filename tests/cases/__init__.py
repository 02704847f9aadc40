"""Shared test data and helpers: test modules import these, never each other.

* ``strategies``: hypothesis strategies and brute-force references for LinearLayout laws;
* ``access``: SwizzleTest's NVIDIA bank cases, layouts from bases, random pairs, the bank oracle;
* ``conversion_zoo``: the zoo of distributed-layout conversions;
* ``swizzle``: SwizzleTest's ld/st swizzle pairs and the 16x32 f32 transpose;
* ``swizzle_sweep``: the seeded swizzle sweep over the zoo;
* ``triton``: the Triton 3.9 oracle's availability rule (``LLVERIFY_REQUIRE_TRITON``) and its
  encoding converters;
* ``scripts``: the repository's scripts (benchmarks/, scripts/) imported by path;
* ``hostile``: the bad-input corpus (command lines and API calls that must be refused);
* ``large_shapes``: the layouts of the large-shape checks (tests and ``bench_memory``);
* ``sandbox``: runs one command line or API call in a forked child under time and memory
  bounds.

pytest puts ``tests/`` on ``sys.path`` (``tests/`` has no ``__init__.py``, so its conftest and
test modules are imported in rootdir "prepend" mode); benchmarks and scripts that reuse these
cases put ``tests/`` there themselves.
"""
