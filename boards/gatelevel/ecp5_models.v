// Simulation models of the two ECP5 primitives that yosys's synth_ecp5 uses
// and whose models yosys does not ship (its share/ecp5/cells_sim.v declares
// DP16KD as a black box, cells_bb.v MULT18X18D): the block RAM and the
// 18x18 multiplier. Every other cell of the netlist (LUT4, PFUMX, L6MUX21,
// CCU2C, TRELLIS_FF, TRELLIS_DPR16X4, ...) runs on yosys's own models
// (boards/gatelevel/netlist.py lists them).
//
// Written from Lattice's description of the primitives (ECP5 memory usage
// guide TN1264, sysDSP guide TN1267) for the configurations synth_ecp5
// instantiates; a configuration outside them stops the simulation at
// start-up instead of being simulated wrongly.
//
// DP16KD, as modelled
//   * 18 Kbit held as 1024 slots of 18 bits: the layout of INITVAL_xx (64
//     rows of 16 slots of 20 bits, the slot's 18 bits at its bottom), as
//     yosys's ECP5 mapping writes it.
//   * A port of width 36 reaches two slots at an address (AD[13:5]; its
//     bits 17:0 the even slot; AD[3:0] enable the 9-bit bytes of a write),
//     18 one slot (AD[13:4]; AD[1:0] byte enables), 9 half a slot (AD[13:3]),
//     4, 2 and 1 bits (AD[13:2], AD[13:1], AD[13:0]) the slot's 16 data
//     bits in order, its bits 8 and 17 (the parity bits) left out.
//   * Width 36 is the pseudo-dual-port form: port A only writes, its data
//     {DIB, DIA}; port B only reads, its data {DOB, DOA}.
//   * A port acts at its clock's rising edge (CLKxMUX "INV": falling) when
//     CEx is high and CSx matches CSDECODE_x. A write stores the enabled
//     bits; the port's output then follows WRITEMODE_x: NORMAL keeps the
//     previous output, WRITETHROUGH shows the word as written,
//     READBEFOREWRITE the word as it was. A read shows the word as it was
//     before the edge. REGMODE_x "OUTREG" adds the output register (OCEx);
//     RSTx clears the output at the edge (an asynchronous reset, RESETMODE
//     "ASYNC", is only accepted held low, as synth_ecp5 ties it).
//   * Both ports at the same edge on a common bit, one of them writing it:
//     Lattice leaves the result undefined. The model reports each such
//     collision on stderr ("DP16KD collision") and gives the reading port
//     the inverse of the bit it would have read (two writes of the bit store
//     the inverse of port A's), so a design that depends on the undefined
//     value cannot agree with its RTL by chance. The count is reported at
//     the end.
//
// MULT18X18D, as modelled: the combinational multiplier only (every REG_*
// "NONE", as synth_ecp5 maps $mul): P = A * B, each operand signed when its
// SIGNEDx input is high, from the A/B inputs (SOURCEx low).

`ifndef GATELEVEL_REPORT_LIMIT
`define GATELEVEL_REPORT_LIMIT 20
`endif

module DP16KD (
    input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
    input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
    input CEA, OCEA, CLKA, WEA, RSTA,
    input CSA2, CSA1, CSA0,
    output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
    input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
    input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
    input CEB, OCEB, CLKB, WEB, RSTB,
    input CSB2, CSB1, CSB0,
    output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
    parameter integer DATA_WIDTH_A = 18;
    parameter integer DATA_WIDTH_B = 18;
    parameter REGMODE_A = "NOREG";
    parameter REGMODE_B = "NOREG";
    parameter RESETMODE = "SYNC";
    parameter ASYNC_RESET_RELEASE = "SYNC";
    parameter CSDECODE_A = "0b000";
    parameter CSDECODE_B = "0b000";
    parameter WRITEMODE_A = "NORMAL";
    parameter WRITEMODE_B = "NORMAL";
    parameter CLKAMUX = "CLKA";
    parameter CLKBMUX = "CLKB";
    parameter GSR = "ENABLED";
    parameter INIT_DATA = "STATIC";
    parameter WID = 0;
    parameter [319:0] INITVAL_00 = 0, INITVAL_01 = 0, INITVAL_02 = 0, INITVAL_03 = 0,
                      INITVAL_04 = 0, INITVAL_05 = 0, INITVAL_06 = 0, INITVAL_07 = 0,
                      INITVAL_08 = 0, INITVAL_09 = 0, INITVAL_0A = 0, INITVAL_0B = 0,
                      INITVAL_0C = 0, INITVAL_0D = 0, INITVAL_0E = 0, INITVAL_0F = 0,
                      INITVAL_10 = 0, INITVAL_11 = 0, INITVAL_12 = 0, INITVAL_13 = 0,
                      INITVAL_14 = 0, INITVAL_15 = 0, INITVAL_16 = 0, INITVAL_17 = 0,
                      INITVAL_18 = 0, INITVAL_19 = 0, INITVAL_1A = 0, INITVAL_1B = 0,
                      INITVAL_1C = 0, INITVAL_1D = 0, INITVAL_1E = 0, INITVAL_1F = 0,
                      INITVAL_20 = 0, INITVAL_21 = 0, INITVAL_22 = 0, INITVAL_23 = 0,
                      INITVAL_24 = 0, INITVAL_25 = 0, INITVAL_26 = 0, INITVAL_27 = 0,
                      INITVAL_28 = 0, INITVAL_29 = 0, INITVAL_2A = 0, INITVAL_2B = 0,
                      INITVAL_2C = 0, INITVAL_2D = 0, INITVAL_2E = 0, INITVAL_2F = 0,
                      INITVAL_30 = 0, INITVAL_31 = 0, INITVAL_32 = 0, INITVAL_33 = 0,
                      INITVAL_34 = 0, INITVAL_35 = 0, INITVAL_36 = 0, INITVAL_37 = 0,
                      INITVAL_38 = 0, INITVAL_39 = 0, INITVAL_3A = 0, INITVAL_3B = 0,
                      INITVAL_3C = 0, INITVAL_3D = 0, INITVAL_3E = 0, INITVAL_3F = 0;

    localparam [20479:0] INITVAL = {
        INITVAL_3F, INITVAL_3E, INITVAL_3D, INITVAL_3C, INITVAL_3B, INITVAL_3A, INITVAL_39, INITVAL_38,
        INITVAL_37, INITVAL_36, INITVAL_35, INITVAL_34, INITVAL_33, INITVAL_32, INITVAL_31, INITVAL_30,
        INITVAL_2F, INITVAL_2E, INITVAL_2D, INITVAL_2C, INITVAL_2B, INITVAL_2A, INITVAL_29, INITVAL_28,
        INITVAL_27, INITVAL_26, INITVAL_25, INITVAL_24, INITVAL_23, INITVAL_22, INITVAL_21, INITVAL_20,
        INITVAL_1F, INITVAL_1E, INITVAL_1D, INITVAL_1C, INITVAL_1B, INITVAL_1A, INITVAL_19, INITVAL_18,
        INITVAL_17, INITVAL_16, INITVAL_15, INITVAL_14, INITVAL_13, INITVAL_12, INITVAL_11, INITVAL_10,
        INITVAL_0F, INITVAL_0E, INITVAL_0D, INITVAL_0C, INITVAL_0B, INITVAL_0A, INITVAL_09, INITVAL_08,
        INITVAL_07, INITVAL_06, INITVAL_05, INITVAL_04, INITVAL_03, INITVAL_02, INITVAL_01, INITVAL_00};

    function automatic [2:0] cs_code(input [39:0] s);   // "0bXYZ" -> XYZ
        cs_code = {s[23:16] == "1", s[15:8] == "1", s[7:0] == "1"};
    endfunction

    // Where bit i of a port's word at address `ad` lies: slot * 18 + bit.
    function automatic [14:0] place(input integer width, input [13:0] ad, input integer i);
        integer d;
        case (width)
            36: place = ad[13:5] * 36 + i;
            18: place = ad[13:4] * 18 + i;
            9: place = ad[13:3] * 9 + i;
            default: begin
                // width 4, 2 or 1: slot AD[13:4], its 16 data bits in order,
                // the parity bits 8 and 17 skipped
                d = (width == 4 ? ad[3:2] * 4 : width == 2 ? ad[3:1] * 2 : ad[3:0]) + i;
                place = ad[13:4] * 18 + d + (d >= 8 ? 1 : 0);
            end
        endcase
    endfunction

    // Whether bit i of a write of `width` at `ad` is enabled by its byte enables.
    function automatic enabled(input integer width, input [13:0] ad, input integer i);
        case (width)
            36: enabled = ad[i / 9];
            18: enabled = ad[i / 9];
            default: enabled = 1'b1;
        endcase
    endfunction

    reg [17:0] mem [0:1023];
    reg [31:0] collisions = 0;
    integer k;

    initial begin
        for (k = 0; k < 1024; k = k + 1)
            mem[k] = INITVAL[20 * k +: 18];
        if (!(DATA_WIDTH_A == 36 || DATA_WIDTH_A == 18 || DATA_WIDTH_A == 9 || DATA_WIDTH_A == 4 ||
              DATA_WIDTH_A == 2 || DATA_WIDTH_A == 1) ||
            !(DATA_WIDTH_B == 36 || DATA_WIDTH_B == 18 || DATA_WIDTH_B == 9 || DATA_WIDTH_B == 4 ||
              DATA_WIDTH_B == 2 || DATA_WIDTH_B == 1))
            $fatal(1, "%m: DP16KD data widths %0d/%0d do not exist", DATA_WIDTH_A, DATA_WIDTH_B);
        if (DATA_WIDTH_B == 36 && DATA_WIDTH_A != 36)
            $fatal(1, "%m: a 36-bit read port needs the 36-bit write port (pseudo-dual-port)");
    end
    always @* if (RESETMODE != "SYNC" && (RSTA || RSTB))
        $fatal(1, "%m: DP16KD asynchronous reset is not modelled");

    wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
    wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
    wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
    wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};

    wire clka = CLKAMUX == "INV" ? ~CLKA : CLKA;
    wire clkb = CLKBMUX == "INV" ? ~CLKB : CLKB;
    wire ena = CEA && {CSA2, CSA1, CSA0} == cs_code(CSDECODE_A);
    wire enb = CEB && {CSB2, CSB1, CSB0} == cs_code(CSDECODE_B);
    // The pseudo-dual-port form: port A never reads, port B never writes.
    wire wra_en = ena && WEA;
    wire wrb_en = enb && WEB && DATA_WIDTH_A != 36;
    wire rda_en = ena && DATA_WIDTH_A != 36;
    wire rdb_en = enb;
    wire [35:0] wda = DATA_WIDTH_A == 36 ? {dib, dia} : {18'b0, dia};
    wire [35:0] wdb = {18'b0, dib};

    // Clock-enabled outputs before the optional output register.
    reg [35:0] lat_a = 0, lat_b = 0, reg_a = 0, reg_b = 0;

    // Collided bits by kind: port A wrote (B read), port B wrote (A read), both wrote.
    reg [31:0] a_wrote = 0, b_wrote = 0, both_wrote = 0;

    task report(input [14:0] bit_at, input [71:0] what);
        begin
            collisions = collisions + 1;
            if (what == "A+B write") both_wrote = both_wrote + 1;
            else if (what == "A writes") a_wrote = a_wrote + 1;
            else b_wrote = b_wrote + 1;
            if (collisions <= `GATELEVEL_REPORT_LIMIT)
                $fwrite(32'h80000002, "DP16KD collision: %m bit %0d (%0s)\n", bit_at, what);
        end
    endtask

    // Both ports on one clock (every block RAM synth_ecp5 makes of these
    // SoCs; a port never enabled may have its clock tied): one block does
    // both ports' accesses of an edge, reads before writes, and sees their
    // collisions.
    always @* if (ena && enb && CLKA != CLKB && (CLKAMUX == "INV") == (CLKBMUX == "INV"))
        $fatal(1, "%m: DP16KD ports on different clocks are not modelled");

    // The widths as variables: loops bounded by them are not unrolled, which
    // keeps the C++ of 88 differently initialized instances small.
    integer width_a, width_b;
    initial begin
        width_a = DATA_WIDTH_A;
        width_b = DATA_WIDTH_B;
    end

    always @(posedge clka or posedge clkb) begin : edge_ab
        reg [35:0] old_a, now_a, old_b, now_b, wen_a, wen_b;
        reg wra, wrb, rda, rdb;
        reg [14:0] at_a [0:35];
        reg [14:0] at_b [0:35];
        integer i, j;
        // A port acts at this edge when its own clock is high now (a port
        // whose clock is tied low never acts).
        wra = wra_en && (CLKAMUX == "INV" ? !CLKA : CLKA);
        rda = rda_en && (CLKAMUX == "INV" ? !CLKA : CLKA);
        wrb = wrb_en && (CLKBMUX == "INV" ? !CLKB : CLKB);
        rdb = rdb_en && (CLKBMUX == "INV" ? !CLKB : CLKB);
        old_a = 0; now_a = 0; wen_a = 0; old_b = 0; now_b = 0; wen_b = 0;
        // (an idle port's bits are not looked at)
        if (rda || wra) for (i = 0; i < width_a; i = i + 1) begin
            at_a[i] = place(width_a, ada, i);
            old_a[i] = mem[at_a[i] / 18][at_a[i] % 18];
            wen_a[i] = wra && enabled(width_a, ada, i);
            now_a[i] = wen_a[i] ? wda[i] : old_a[i];
        end
        if (rdb || wrb) for (i = 0; i < width_b; i = i + 1) begin
            at_b[i] = place(width_b, adb, i);
            old_b[i] = mem[at_b[i] / 18][at_b[i] % 18];
            wen_b[i] = wrb && enabled(width_b, adb, i);
            now_b[i] = wen_b[i] ? wdb[i] : old_b[i];
        end
        // The two accesses meet on a bit, one of them writing it.
        if ((rda || wra) && (rdb || wrb) && (wra || wrb) && at_a[0] / 18 <= at_b[width_b - 1] / 18
                && at_b[0] / 18 <= at_a[width_a - 1] / 18)
            for (i = 0; i < width_a; i = i + 1)
                for (j = 0; j < width_b; j = j + 1)
                    if (at_a[i] == at_b[j] && (wen_a[i] || wen_b[j])) begin
                        report(at_a[i], wen_a[i] && wen_b[j] ? "A+B write" : wen_a[i] ? "A writes" : "B writes");
                        if (wen_a[i] && wen_b[j]) begin      // both write: the inverse of A's bit
                            now_a[i] = ~now_a[i];
                            now_b[j] = now_a[i];
                        end else if (wen_a[i]) begin         // B's read of the bit
                            old_b[j] = ~old_b[j];
                            now_b[j] = old_b[j];
                        end else begin                       // A's read of the bit
                            old_a[i] = ~old_a[i];
                            now_a[i] = old_a[i];
                        end
                    end
        if (wra) for (i = 0; i < width_a; i = i + 1)
            if (wen_a[i]) mem[at_a[i] / 18][at_a[i] % 18] = now_a[i];
        if (wrb) for (i = 0; i < width_b; i = i + 1)
            if (wen_b[i]) mem[at_b[i] / 18][at_b[i] % 18] = now_b[i];
        if (rda)
            lat_a <= !wra ? old_a : WRITEMODE_A == "WRITETHROUGH" ? now_a
                   : WRITEMODE_A == "READBEFOREWRITE" ? old_a : lat_a;
        if (rdb)
            lat_b <= !wrb ? old_b : WRITEMODE_B == "WRITETHROUGH" ? now_b
                   : WRITEMODE_B == "READBEFOREWRITE" ? old_b : lat_b;
        if (RSTA) lat_a <= 0;
        if (RSTA) reg_a <= 0;
        else if (OCEA) reg_a <= lat_a;
        if (RSTB) lat_b <= 0;
        if (RSTB) reg_b <= 0;
        else if (OCEB) reg_b <= lat_b;
    end

    final if (collisions != 0)
        $fwrite(32'h80000002, "DP16KD collisions: %m %0d (A writes %0d, B writes %0d, both %0d)\n",
                collisions, a_wrote, b_wrote, both_wrote);

    wire [35:0] out_a = REGMODE_A == "OUTREG" ? reg_a : lat_a;
    wire [35:0] out_b = REGMODE_B == "OUTREG" ? reg_b : lat_b;
    // Width 36: port B's read is {DOB, DOA}.
    wire [17:0] doa = DATA_WIDTH_B == 36 ? out_b[17:0] : out_a[17:0];
    wire [17:0] dob = DATA_WIDTH_B == 36 ? out_b[35:18] : out_b[17:0];
    assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
    assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;
endmodule

module MULT18X18D (
    input A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0,
    input B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0,
    input C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0,
    input SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
    input CLK3, CLK2, CLK1, CLK0, CE3, CE2, CE1, CE0, RST3, RST2, RST1, RST0,
    input SRIA17, SRIA16, SRIA15, SRIA14, SRIA13, SRIA12, SRIA11, SRIA10, SRIA9, SRIA8, SRIA7, SRIA6, SRIA5, SRIA4, SRIA3, SRIA2, SRIA1, SRIA0,
    input SRIB17, SRIB16, SRIB15, SRIB14, SRIB13, SRIB12, SRIB11, SRIB10, SRIB9, SRIB8, SRIB7, SRIB6, SRIB5, SRIB4, SRIB3, SRIB2, SRIB1, SRIB0,
    output SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6, SROA5, SROA4, SROA3, SROA2, SROA1, SROA0,
    output SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6, SROB5, SROB4, SROB3, SROB2, SROB1, SROB0,
    output ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4, ROA3, ROA2, ROA1, ROA0,
    output ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4, ROB3, ROB2, ROB1, ROB0,
    output ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4, ROC3, ROC2, ROC1, ROC0,
    output P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0,
    output SIGNEDP
);
    parameter REG_INPUTA_CLK = "NONE", REG_INPUTA_CE = "CE0", REG_INPUTA_RST = "RST0";
    parameter REG_INPUTB_CLK = "NONE", REG_INPUTB_CE = "CE0", REG_INPUTB_RST = "RST0";
    parameter REG_INPUTC_CLK = "NONE", REG_INPUTC_CE = "CE0", REG_INPUTC_RST = "RST0";
    parameter REG_PIPELINE_CLK = "NONE", REG_PIPELINE_CE = "CE0", REG_PIPELINE_RST = "RST0";
    parameter REG_OUTPUT_CLK = "NONE", REG_OUTPUT_CE = "CE0", REG_OUTPUT_RST = "RST0";
    parameter CLK0_DIV = "ENABLED", CLK1_DIV = "ENABLED", CLK2_DIV = "ENABLED", CLK3_DIV = "ENABLED";
    parameter HIGHSPEED_CLK = "NONE", GSR = "ENABLED", CAS_MATCH_REG = "FALSE";
    parameter SOURCEB_MODE = "B_SHIFT", MULT_BYPASS = "DISABLED", RESETMODE = "SYNC";

    initial begin
        if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE" ||
            REG_PIPELINE_CLK != "NONE" || REG_OUTPUT_CLK != "NONE" || MULT_BYPASS != "DISABLED")
            $fatal(1, "%m: MULT18X18D with registers or bypass is not modelled");
    end
    always @* if (SOURCEA || SOURCEB)
        $fatal(1, "%m: MULT18X18D with shift-register operands is not modelled");

    wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
    wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
    wire signed [35:0] sa = {{18{SIGNEDA & a[17]}}, a};
    wire signed [35:0] sb = {{18{SIGNEDB & b[17]}}, b};
    wire [35:0] p = sa * sb;
    assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p;
    assign {ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4, ROA3, ROA2, ROA1, ROA0} = a;
    assign {ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4, ROB3, ROB2, ROB1, ROB0} = b;
    assign {ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4, ROC3, ROC2, ROC1, ROC0} = {C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0};
    assign {SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6, SROA5, SROA4, SROA3, SROA2, SROA1, SROA0} = 0;
    assign {SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6, SROB5, SROB4, SROB3, SROB2, SROB1, SROB0} = 0;
    assign SIGNEDP = SIGNEDA | SIGNEDB;
endmodule
