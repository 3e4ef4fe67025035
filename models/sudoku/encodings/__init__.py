"""Sudoku encodings; each serves both ``sudoku`` and ``sudoku_x`` (instance.diagonal)."""
