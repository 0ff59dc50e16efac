"""numeric subpackage."""
