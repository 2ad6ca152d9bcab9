"""Bytes in and out of module folders, safely.

Reading module files (decoding, BOMs, line endings), parsing YAML and JSON
with source maps, finding JSON in model text, JSON Pointers, what makes a
folder a module, editor snapshots, and all-or-nothing writes inside one
folder. Nothing here knows what a module means; everything above reads and
writes files through here.
"""
