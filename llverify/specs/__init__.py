"""The built-in spec library: closed-form references of hardware fragments and encodings, each
citing its source, and the obligations (each module's ``LIBRARY``) that tie llverify's
converters to them; ``library/`` and ``examples/`` hold its TOML spec files (package data).

The modules: ``claims`` (how their obligations are decided), and the references, one module
per subject: ``blocked``, ``shared`` (swizzled and AMD rotating), ``nvmma_shared``,
``padded``, ``nvidia_mma`` (``mma.sync`` and ``wgmma`` fragments), ``amd_mfma``, ``amd_wmma``,
``tmem`` (tcgen05.ld/st), ``ldmatrix``, ``intel_dpas`` (Intel DPAS A/B/C fragments) and
``scales`` (block-scale scale factors, proved by tests/test_encodings_scales.py);
``fragments`` holds the vendor fragment formulas only the atom catalogue
(:mod:`llverify.atoms`) is proved against (every atom of which is an obligation of the
library too: :mod:`llverify.atoms.library`).
"""
