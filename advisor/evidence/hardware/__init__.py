"""Hardware and environment probes that run in the advisor's own process (no framework is imported)."""
