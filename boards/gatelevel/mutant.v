// The gate-level check's negative control (boards/gatelevel/mutate.py): one
// LUT4 of the netlist is instantiated as this module instead. Without the
// plusarg +gatelevel_mutant it is that LUT4 (yosys's model, the same INIT);
// with it, INIT bit FLIP is inverted: the netlist with one LUT init bit
// flipped, from the same compiled model.
// Z = INIT[{D, C, B, A}], as yosys's LUT4 model.
module GATELEVEL_MUTANT_LUT4 (input A, B, C, D, output Z);
    parameter [15:0] INIT = 16'h0000;
    parameter integer FLIP = 0;
    reg [15:0] init;
    initial begin
        init = INIT;
        if ($test$plusargs("gatelevel_mutant")) init[FLIP] = ~INIT[FLIP];
    end
    assign Z = init[{D, C, B, A}];
endmodule
