"""Triton integration: the installed Triton and its releases, always out of process.

Modules:

* ``check``: ``llverify triton-check``, the installed Triton's converters against llverify's;
* ``check_worker``: the subprocess that runs Triton's converters (Triton may abort);
* ``compile``: compile a TTGIR module with the installed Triton or a release's virtualenv,
  with the dialect translation table per release;
* ``compile_worker``: the script the compiling interpreter runs, serving compile after
  compile (imports only Triton);
* ``protocol``: the request/answer protocol of both workers and their parents;
* ``releases``: where the release virtualenvs live (``LLVERIFY_TRITON_RELEASES``, else the
  per-user cache folder);
* ``verify``: Triton's own parser and verifier on a TTGIR module before a verdict (their
  refusal is the module's error);
* ``verify_worker``: the script that parses and verifies the module (imports only Triton);
* ``workers``: the persistent compile workers, one per interpreter and process.

Importing this package never imports Triton.
"""
