"""Judging modules, envelopes and stream chunks against the spec.

`cogn validate`'s manifest and contract checks, the envelope and chunk
rules, the offline document checker of `cogn check`, multimodal input rules,
and the error-code taxonomy. Rules read modules and JSON values; they never
call a provider or write a file.
"""
