"""The Textual app: screens render state from the core and dispatch; workers only post messages.

Imports point one way inside it, top to bottom (AGENTS.md): app -> commands/navigation -> screens ->
widgets -> workbench/messages/keys. Nothing here decides a rule: every rule lives in `cogtui.core`.
"""
