// Properties of the CLIC (soc/clic.py), placed by formal/clic.py inside the
// module Migen generates. The generator binds the f_* inputs of this block to
// the module's signals and sets:
//   F_N     sources            F_IDW  width of irq_id / claim_id
//   F_D     output_delay       (1, plus 1 per register inside the tree)
//   F_AW    decoded word-address bits, F_BASE word address of clicintip[0]
// and `defines FP_<GROUP> for the one group of asserts a job checks.
//
// Cycle x is the interval between two clock edges; "of x-k" is a value k
// cycles before the current one, kept here in shift registers. The contract
// is the module docstring's and trace/clicmodel.py's:
//   seen(x)   the pending bits of x with x's hardware changes already in: an
//             edge source's bit or its polarity-corrected edge in x, a level
//             source's corrected line in x;
//   outputs   in x: the winner among the sources seen and enabled in x-D, by
//             the largest (clicintctl, id), with clicintctl, ie and shv of
//             x-D; irq_level its clicintctl with the low 8-nlbits bits set,
//             nlbits of x-1; irq_valid 0 when there is no winner and in the D
//             cycles after any claim;
//   verdicts  irq_above(x) = irq_valid(x) & irq_level(x) > threshold(x-1),
//             irq_above_alt the same with threshold_alt, irq_id_kept(x) =
//             irq_id(x) == irq_id(x-1);
//   pending   in x+1, from the inputs of x: a level source's bit is its
//             corrected line; an edge source's bit is set by an edge of the
//             chosen polarity or a software write of 1 to clicintip, and
//             otherwise kept unless a software write of 0 or a claim of its
//             id clears it (a set wins over a clear).
// Reset: sys_rst is asserted in the first cycle and free afterwards; f_age
// counts the cycles since the last reset, and a property about the outputs
// holds once the D cycles it looks back over are after that reset.

reg f_first = 1'b1;
always @(posedge sys_clk) f_first <= 1'b0;
always @(*) if (f_first) assume(sys_rst);

reg [3:0] f_age = 4'd0;              // cycles since the last reset cycle, saturating
always @(posedge sys_clk) f_age <= sys_rst ? 4'd0 : (f_age == 4'd15 ? 4'd15 : f_age + 4'd1);

// ---- the contract, from the registers and the inputs of this cycle
reg [F_N-1:0] f_lines_d = 0;         // the lines of x-1 (0 after a reset, as the model's)
always @(posedge sys_clk) f_lines_d <= sys_rst ? {F_N{1'b0}} : f_sources;

wire [F_N-1:0] f_corr = f_sources ^ f_neg;                 // polarity-corrected lines
wire [F_N-1:0] f_hwedge = (f_sources ^ f_lines_d) & f_corr; // an edge of the chosen polarity
wire [F_N-1:0] f_seen = (f_edge & (f_hwedge | f_ip)) | (~f_edge & f_corr);
wire [F_N-1:0] f_cand = f_seen & f_ie;

// The winner: the largest (clicintctl, id) among the candidates (seen and
// enabled), and the most urgent enabled source, the same over all enabled.
reg f_found, f_efound, f_wshv;
reg [F_IDW-1:0] f_win, f_ewin;
reg [7:0] f_wctl;
integer fi;
always @(*) begin
    f_found = 1'b0; f_win = 0; f_wctl = 8'd0; f_wshv = 1'b0;
    f_efound = 1'b0; f_ewin = 0;
    for (fi = 0; fi < F_N; fi = fi + 1) begin
        // ascending ids with >=: among equal clicintctl the highest id stays
        if (f_cand[fi] && (!f_found || f_ctl8[8*fi +: 8] >= f_wctl)) begin
            f_found = 1'b1; f_win = fi; f_wctl = f_ctl8[8*fi +: 8]; f_wshv = f_shv[fi];
        end
        if (f_ie[fi] && (!f_efound || f_ctl8[8*fi +: 8] >= f_ctl8[8*f_ewin +: 8])) begin
            f_efound = 1'b1; f_ewin = fi;
        end
    end
end

// ---- history: index k-1 of each shift register is the value of x-k
reg [F_D-1:0] f_h_found = 0, f_h_efound = 0, f_h_wshv = 0, f_h_claim = 0;
reg [F_D*F_IDW-1:0] f_h_win = 0, f_h_ewin = 0;
reg [F_D*8-1:0] f_h_wctl = 0;
reg [F_D*F_N-1:0] f_h_cand = 0, f_h_ie = 0;
reg [F_D*8*F_N-1:0] f_h_ctl8 = 0;
reg [3:0] f_nl_d = 0;                // nlbits of x-1
reg [7:0] f_thr_d = 0, f_thr_alt_d = 0;
reg [F_IDW-1:0] f_id_d = 0;          // irq_id of x-1
always @(posedge sys_clk) begin
    f_h_found <= {f_h_found, f_found};
    f_h_efound <= {f_h_efound, f_efound};
    f_h_wshv <= {f_h_wshv, f_wshv};
    f_h_claim <= {f_h_claim, f_claim};
    f_h_win <= {f_h_win, f_win};
    f_h_ewin <= {f_h_ewin, f_ewin};
    f_h_wctl <= {f_h_wctl, f_wctl};
    f_h_cand <= {f_h_cand, f_cand};
    f_h_ie <= {f_h_ie, f_ie};
    f_h_ctl8 <= {f_h_ctl8, f_ctl8};
    f_nl_d <= f_nlbits;
    f_thr_d <= f_threshold;
    f_thr_alt_d <= f_threshold_alt;
    f_id_d <= f_irq_id;
end
// of x-D
wire f_d_found = f_h_found[F_D-1];
wire f_d_efound = f_h_efound[F_D-1];
wire f_d_wshv = f_h_wshv[F_D-1];
wire [F_IDW-1:0] f_d_win = f_h_win[(F_D-1)*F_IDW +: F_IDW];
wire [F_IDW-1:0] f_d_ewin = f_h_ewin[(F_D-1)*F_IDW +: F_IDW];
wire [7:0] f_d_wctl = f_h_wctl[(F_D-1)*8 +: 8];
wire [F_N-1:0] f_d_cand = f_h_cand[(F_D-1)*F_N +: F_N];
wire [F_N-1:0] f_d_ie = f_h_ie[(F_D-1)*F_N +: F_N];
wire [8*F_N-1:0] f_d_ctl8 = f_h_ctl8[(F_D-1)*8*F_N +: 8*F_N];
wire f_hold = |f_h_claim;            // a claim in x-D .. x-1
wire [7:0] f_lowmask = 8'hFF >> f_nl_d;
wire f_ready = f_age >= F_D;         // the D cycles looked back over are after the reset

`ifdef FP_ARBITRATION
// The request: irq_valid iff a source was pending and enabled in x-D and no
// claim came since; it names the one with the largest (clicintctl, id), its
// level with nlbits of x-1 and its shv.
always @(*) if (f_ready) begin
    assert(f_irq_valid == (f_d_found && !f_hold));
    if (f_irq_valid) begin
        assert(f_irq_id == f_d_win);
        assert(f_irq_level == (f_d_wctl | f_lowmask));
        assert(f_irq_shv == f_d_wshv);
    end
end
`endif

`ifdef FP_THRESHOLD
// The core's verdict: irq_above iff some source pending and enabled in x-D has
// a level above the threshold of x-1 and no claim came since (with
// ARBITRATION, the source named is then the largest of those).
reg f_any_above, f_any_above_alt;
integer fj;
always @(*) begin
    f_any_above = 1'b0; f_any_above_alt = 1'b0;
    for (fj = 0; fj < F_N; fj = fj + 1) begin
        if (f_d_cand[fj] && (f_d_ctl8[8*fj +: 8] | f_lowmask) > f_thr_d) f_any_above = 1'b1;
        if (f_d_cand[fj] && (f_d_ctl8[8*fj +: 8] | f_lowmask) > f_thr_alt_d) f_any_above_alt = 1'b1;
    end
end
always @(*) if (f_ready) begin
    assert(f_irq_above == (f_any_above && !f_hold));
    assert(f_irq_above_alt == (f_any_above_alt && !f_hold));
end
`endif

`ifdef FP_PREFETCH
// irq_id, which the core's vector prefetch reads ahead: the winner while a
// source is pending (even in the hold after a claim), else the enabled
// source with the largest (clicintctl, id), 0 with none enabled. So it never
// names a source that was not enabled in x-D while one was, and with nothing
// pending it names the one that would win first.
always @(*) if (f_ready) begin
    assert(f_irq_id == (f_d_found ? f_d_win : (f_d_efound ? f_d_ewin : {F_IDW{1'b0}})));
    if (f_d_efound) assert((f_d_ie >> f_irq_id) & 1'b1);
end
// irq_id_kept: irq_id equals that of the cycle before (1 right after reset).
always @(*) if (!f_first) begin
    if (f_age >= 1) assert(f_irq_id_kept == (f_irq_id == f_id_d));
    else assert(f_irq_id_kept);
end
`endif

// ---- pending bits: the next state, from this cycle's lines, bus and claim
wire f_wr = f_bus_cyc & f_bus_stb & f_bus_we & ~f_bus_ack;   // a write's request cycle
wire [F_AW-1:0] f_adr = f_bus_adr[F_AW-1:0];
reg [F_N-1:0] f_swhit, f_claimhit;
integer fk;
always @(*) begin
    for (fk = 0; fk < F_N; fk = fk + 1) begin
        f_swhit[fk] = f_wr && f_bus_sel[0] && f_adr == F_BASE + fk;
        f_claimhit[fk] = f_claim && f_claim_id == fk;
    end
end
wire [F_N-1:0] f_swset = f_swhit & {F_N{f_bus_dat_w[0]}};
wire [F_N-1:0] f_swclr = f_swhit & ~{F_N{f_bus_dat_w[0]}};
wire [F_N-1:0] f_ip_next = (f_edge & (f_hwedge | f_swset | (f_ip & ~(f_swclr | f_claimhit)))) | (~f_edge & f_corr);
reg [F_N-1:0] f_ip_exp = 0, f_edge_d = 0;
reg f_claim_d = 0;
always @(posedge sys_clk) begin
    f_ip_exp <= f_ip_next;
    f_edge_d <= f_edge;
    f_claim_d <= f_claim;
end

`ifdef FP_PENDING
// Cycles without a claim: level sources follow their corrected line, edge
// sources are set by an edge of their polarity or software and cleared by
// software only, a set winning.
always @(*) if (f_age >= 1 && !f_claim_d) begin
    assert(((f_ip ^ f_ip_exp) & ~f_edge_d) == 0);
    assert(((f_ip ^ f_ip_exp) & f_edge_d) == 0);
end
`endif

`ifdef FP_CLAIM
// Cycles with a claim: it clears the claimed edge source's bit (unless an edge
// or a software set comes in the same cycle), no other bit, and no level
// source's.
always @(*) if (f_age >= 1 && f_claim_d) begin
    assert(((f_ip ^ f_ip_exp) & ~f_edge_d) == 0);
    assert(((f_ip ^ f_ip_exp) & f_edge_d) == 0);
end
`endif
