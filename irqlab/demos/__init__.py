"""The demos of issue #13: real control work on the SoC (`irqlab demo NAME`)."""
