"""The cogtui runtime core: pure Python, no Textual."""
