"""Declarative references: closed-form formulas of hardware fragments and encodings, each
citing its source, and the obligations that tie llverify's converters to them."""
