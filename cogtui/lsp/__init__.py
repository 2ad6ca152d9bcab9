"""`cogn lsp`: the language server (pygls 2 + lsprotocol) over stdio. An adapter like `cogtui/serve/`: it turns the
core's answers (`cogtui/core/assist/`) into the protocol's types, and nothing below it imports it; `cogn validate`
and the other headless commands never load pygls or lsprotocol.
"""
