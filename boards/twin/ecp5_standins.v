// Simulation stand-ins for the ECP5 primitives a ULX3S project instantiates
// (boards/twin/target.py says what each replaces and why no cycle changes).
// Only the ports the project connects are modelled.

// The PLL: its output is its input clock; locked while not in reset.
module EHXPLLL #(
    parameter CLKI_DIV = 1, parameter CLKFB_DIV = 1, parameter CLKOP_DIV = 8, parameter CLKOS_DIV = 8,
    parameter CLKOS2_DIV = 8, parameter CLKOS3_DIV = 8, parameter CLKOP_ENABLE = "ENABLED",
    parameter CLKOS_ENABLE = "DISABLED", parameter CLKOS2_ENABLE = "DISABLED",
    parameter CLKOS3_ENABLE = "DISABLED", parameter CLKOP_CPHASE = 0, parameter CLKOS_CPHASE = 0,
    parameter CLKOS2_CPHASE = 0, parameter CLKOS3_CPHASE = 0, parameter CLKOP_FPHASE = 0,
    parameter CLKOS_FPHASE = 0, parameter CLKOS2_FPHASE = 0, parameter CLKOS3_FPHASE = 0,
    parameter FEEDBK_PATH = "CLKOP"
) (
    input CLKI, input CLKFB, input RST, input STDBY, input PHASESEL0, input PHASESEL1,
    input PHASEDIR, input PHASESTEP, input PHASELOADREG, input PLLWAKESYNC, input ENCLKOP,
    input ENCLKOS, input ENCLKOS2, input ENCLKOS3,
    output CLKOP, output CLKOS, output CLKOS2, output CLKOS3, output LOCK, output INTLOCK,
    output REFCLK, output CLKINTFB
);
    assign CLKOP = CLKI;
    assign CLKOS = CLKI;
    assign CLKOS2 = CLKI;
    assign CLKOS3 = CLKI;
    assign LOCK = ~RST;
    assign INTLOCK = ~RST;
    assign REFCLK = CLKI;
    assign CLKINTFB = CLKI;
endmodule

// A flip-flop on the rising edge of CK with an asynchronous preset PD.
module FD1S3BX (input CK, input D, input PD, output reg Q);
    initial Q = 1'b1;
    always @(posedge CK or posedge PD)
        if (PD) Q <= 1'b1;
        else Q <= D;
endmodule

// A global clock buffer with its enable.
module DCCA (input CLKI, input CE, output CLKO);
    assign CLKO = CLKI & CE;
endmodule
