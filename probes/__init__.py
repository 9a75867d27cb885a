"""Scripts that run inside a framework's child process: standard library, NumPy and that framework only."""
