"""cogtui: a terminal workbench for Cognitive Modules."""

__version__ = "0.2.0"
