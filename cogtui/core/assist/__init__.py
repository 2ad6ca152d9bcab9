"""What an editor asks of a module as its author types: diagnostics with ranges, hover, completion, definitions
and safe fixes. Plain data in, plain data out: the language server (`cogtui/lsp/`) turns them into the protocol's
types, and nothing here knows of it. Every answer comes from the rules and data the rest of the core uses
(`validate_module`, the position maps, the manifest field reference), never a second copy of them.
"""
