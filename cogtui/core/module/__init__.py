"""What a module is.

The immutable `Module` model, the loader for every format (v0, v1, v2.1,
v2.2, v2.5), its schemas with safe local `$ref` resolution, which golden
tests and examples it has, tier defaults, the spec's standard schema parts,
and discovery along the search path. Loading judges nothing: it only reports
what could not be read, as located diagnostics.
"""
