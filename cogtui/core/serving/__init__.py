"""The core of serving modules to other programs (`cogn mcp`, `cogn serve`): what is offered, how runs go.

`catalogue.py` says which modules a server offers (those that validate) and what changed since it last
looked; `runs.py` runs them bounded, recorded and cancellable; `schema_parts.py` makes a module's schema
parts stand alone. The protocols themselves are adapters above the core (cogtui/serve/).
"""
