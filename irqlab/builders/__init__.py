"""What runs on the SoC, built from source and cached by content: the own core's
Verilog (core), the FreeRTOS kernel from its crate (freertos), firmware per row
(firmware, its build options fwoptions), images with their configuration block
(fwimage), and the background workload's network (digits_net)."""
