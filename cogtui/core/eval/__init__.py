"""Evals: a module's goldens against several providers and models, compared with a baseline (docs/eval.md)."""
