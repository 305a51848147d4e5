"""A Modbus-RTU slave on the SoC, driven by a host master."""
