"""Evidence gathered on this machine: hardware probes and framework child processes (probe, bench)."""
