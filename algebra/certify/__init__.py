"""certify subpackage."""
