"""The encodings of N-Queens completion, one a file."""
