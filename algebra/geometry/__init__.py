"""geometry subpackage."""
