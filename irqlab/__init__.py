"""irqlab: interrupt latency and throughput, measured to the cycle."""
