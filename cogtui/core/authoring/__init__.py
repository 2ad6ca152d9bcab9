"""Changing modules on disk: scaffolding, promotion of insights, migration.

Everything here plans a change first and writes it through the file layer's
transactions, so a module is never left half-changed.
"""
