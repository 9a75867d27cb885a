"""The Textual app: a thin shell that walks the user through the evaluation and shows what the core computes."""
