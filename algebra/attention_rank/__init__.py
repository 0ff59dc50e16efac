"""attention_rank subpackage."""
