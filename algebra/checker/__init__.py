"""checker subpackage."""
