"""Producing envelopes: running a module against a provider.

The run pipeline (prompt, provider call with timeouts and retries, JSON
extraction, normalisation and the repair pass, post-processing into an
envelope), v2.5 field streaming and chunk assembly, media fetching,
subagents, golden test runs, and the providers themselves.
"""
