"""slt subpackage."""
