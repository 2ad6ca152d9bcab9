"""The Textual app: screens render state from the core and dispatch; widgets draw; workers only post messages.

Imports point one way inside it (AGENTS.md): app -> navigation/commands -> screens -> widgets -> shown text.
Nothing here decides a rule: every rule lives in `cogtui.core` with its unit tests.
"""
