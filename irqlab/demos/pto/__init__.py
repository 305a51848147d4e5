"""Pulse-train output: the highest sustained frequency and the period jitter per row."""
