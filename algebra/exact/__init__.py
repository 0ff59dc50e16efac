"""exact subpackage."""
