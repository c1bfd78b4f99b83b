"""Class-form ops (being written)."""
