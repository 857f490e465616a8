"""The bytes that end a token, shared by the tokeniser and its compiled kernel."""

SEPARATORS: bytes = bytes([9, 10, 11, 12, 13, 28, 29, 30, 31, 32])
"""The bytes that end a token (``str.split()``'s whitespace within ASCII)."""
