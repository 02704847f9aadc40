"""The built-in spec library: closed-form references of hardware fragments and encodings, each
citing its source, and the obligations (each module's ``LIBRARY``) that tie llverify's
converters to them; ``library/`` and ``examples/`` hold its TOML spec files (package data)."""
