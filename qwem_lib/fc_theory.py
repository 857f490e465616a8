"""Placeholder: filled in by its part of the book."""

__all__: list[str] = []
