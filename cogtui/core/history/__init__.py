"""The run store and the insights queries over it.

Every finished run becomes a record; the store keeps them and answers the
history, compare and insights views.
"""
