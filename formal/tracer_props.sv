// Properties of the trace unit (soc/tracer.py), placed by formal/tracer.py
// inside the module Migen generates. The generator binds the f_* names:
//   f_ts (64), f_ts_core (48: the core class's stamp), f_load (ts_load
//   strobe), f_drops (the drop CSR), f_pending / f_report /
//   f_last_was_overflow / f_time_hi_pending (the merge's state);
//   per event class c = 0 hw, 1 sw, 2 core: f_we<c> (an event offered, the
//   class FIFO's write enable), f_writable<c>, f_re<c>, f_readable<c>,
//   f_din<c>, f_dout<c>, f_level<c>, f_produce<c>, f_consume<c> and its
//   f_produce<c>, f_consume<c>, f_rec<c>_0, f_rec<c>_1 (the records in its
//   memory's two slots), the same for the console FIFO (c = 3);
//   the console FIFO's f_re3 / f_readable3; the record FIFO's f_rwe,
//   f_rwritable, f_rdin.
// A record is {payload[63:0], stamp[47:0], type[7:0]}: stamp = [55:8].
// Reset: asserted in the first cycle, free afterwards (a reset starts a new
// trace: the counters and the last stamps here start again with it).

reg f_first = 1'b1;
always @(posedge sys_clk) f_first <= 1'b0;
always @(*) if (f_first) assume(sys_rst);
reg [1:0] f_age = 2'd0;              // cycles since the last reset cycle, saturating at 3
always @(posedge sys_clk) f_age <= sys_rst ? 2'd0 : (f_age == 2'd3 ? 2'd3 : f_age + 2'd1);

`define F_STAMP(rec) rec[55:8]
`define F_TYPE(rec) rec[7:0]

// FIFO facts, for each of the four FIFOs into the merge (c = 0 hw, 1 sw,
// 2 core, 3 console; <T> the record type its records carry): what Migen's
// SyncFIFO of depth 2 keeps true, and what the class logic writes into it.
// They are the invariants that make the properties below inductive (an
// induction step may start from any state: these rule out the unreachable
// ones, and are proven with every group).
// F_FIFO_BEGIN: written out once per FIFO (formal/tracer.py)
wire [119:0] f_head<c> = f_consume<c> ? f_rec<c>_1 : f_rec<c>_0;    // the records in its slots
wire [119:0] f_tail<c> = f_consume<c> ? f_rec<c>_0 : f_rec<c>_1;
wire [119:0] f_newest<c> = f_produce<c> ? f_rec<c>_0 : f_rec<c>_1;  // written last
always @(*) if (!f_first) begin
    assert(f_level<c> <= 2);
    assert(f_produce<c> == (f_consume<c> ^ (f_level<c> == 1)));
    if (f_we<c> && f_writable<c>) assert(`F_TYPE(f_din<c>) == <T>);
    if (f_level<c> != 0) assert(`F_TYPE(f_head<c>) == <T>);
    if (f_level<c> == 2) assert(`F_TYPE(f_tail<c>) == <T>);
end
// F_FIFO_END

wire [2:0] f_drop = {f_we2 & ~f_writable2, f_we1 & ~f_writable1, f_we0 & ~f_writable0};
wire f_ovf = f_rwe && `F_TYPE(f_rdin) == 8'd4;         // an OVERFLOW record written

`ifdef FP_ACCOUNT
// No event lost without a count: an event offered to its class FIFO is
// either stored or dropped; f_lost counts the drops (all classes of a
// cycle), f_told the drops reported in OVERFLOW records (their payloads).
// The drop CSR counts every drop, and what is not yet reported is pending:
// told + pending = drops. Every record leaving a class FIFO goes into the
// record FIFO in that cycle, unchanged, and the record FIFO is only written
// when it has room (it would ignore the write, silently).
reg [31:0] f_lost = 0, f_told = 0;
always @(posedge sys_clk) begin
    if (sys_rst) begin
        f_lost <= 0; f_told <= 0;
    end else begin
        f_lost <= f_lost + f_drop[0] + f_drop[1] + f_drop[2];
        f_told <= f_told + (f_ovf ? f_rdin[87:56] : 32'd0);
    end
end
always @(*) if (!f_first) begin
    assert(f_drops == f_lost);
    assert(f_told + f_pending == f_drops);
    if (f_rwe) assert(f_rwritable);
    if (f_re0 && f_readable0) assert(f_rwe && f_rdin == f_dout0);
    if (f_re1 && f_readable1) assert(f_rwe && f_rdin == f_dout1);
    if (f_re2 && f_readable2) assert(f_rwe && f_rdin == f_dout2);
    if (f_re3 && f_readable3) assert(f_rwe && f_rdin == f_dout3);
    if (f_report) assert(f_ovf && f_rdin[87:56] == f_pending);
    // one record a cycle: at most one class FIFO is read
    assert((f_re0 && f_readable0) + (f_re1 && f_readable1) + (f_re2 && f_readable2)
           + (f_re3 && f_readable3) <= 1);
end
`endif

`ifdef FP_REPORT
// Drops are reported without delay: with drops pending, of two cycles in a
// row in which the record FIFO has room and no TIME_HI is due, the first or
// the second writes the OVERFLOW record (under sustained load it takes every
// other slot, the classes the others).
reg [1:0] f_missed = 0;              // such cycles since the drops became pending, no report
wire f_room = f_rwritable && !f_time_hi_pending;
always @(posedge sys_clk)
    if (sys_rst || f_pending == 0 || f_report) f_missed <= 0;
    else if (f_room && f_missed != 2'd3) f_missed <= f_missed + 1;
always @(*) if (!f_first) begin
    assert(f_missed <= 1);
    // what makes it so: an OVERFLOW in the last slot means none is due now
    if (f_missed == 1) assert(!f_last_was_overflow);
end
`endif

`ifdef FP_MONO
// Timestamps: the counter counts one a cycle (no ts_load: assumed), and in
// each event class the stamps of the records entering the record FIFO
// strictly increase. Assumed: no ts_load and no wrap of the low 48 bits
// (both send a TIME_HI record, after which the host rebases: trace/decode.py).
always @(*) assume(!f_load);
always @(*) assume(f_ts[47:0] != 48'hFFFF_FFFF_FFFF);
reg [63:0] f_ts_d = 0;
always @(posedge sys_clk) f_ts_d <= f_ts;
always @(*) if (!f_first) begin
    if (f_age >= 1) assert(f_ts == f_ts_d + 1);
    else assert(f_ts == 0);
    if (f_age >= 1) assert(f_ts_core == f_ts[47:0] - 1);
end

// Per class: the stamp last written into the class FIFO (f_lin) and the one
// last passed on into the record FIFO (f_lout), with flags for "one since
// reset". The FIFO facts below are what makes the claim inductive: stored
// stamps are in order, the newest is f_lin, the oldest after f_lout.
// F_CLASS_BEGIN: written out once per class (formal/tracer.py), <c> its number, <NOW> its stamp source
reg [47:0] f_lin<c> = 0, f_lout<c> = 0;
reg f_hin<c> = 0, f_hout<c> = 0;
always @(posedge sys_clk)
    if (sys_rst) begin f_hin<c> <= 0; f_hout<c> <= 0; end
    else begin
        if (f_we<c> && f_writable<c>) begin f_lin<c> <= `F_STAMP(f_din<c>); f_hin<c> <= 1; end
        if (f_re<c> && f_readable<c>) begin f_lout<c> <= `F_STAMP(f_dout<c>); f_hout<c> <= 1; end
    end
wire [47:0] f_shead<c> = `F_STAMP(f_head<c>), f_stail<c> = `F_STAMP(f_tail<c>);
wire [47:0] f_snewest<c> = `F_STAMP(f_newest<c>);
always @(*) if (!f_first && f_age >= 1) begin
    if (f_we<c> && f_writable<c> && f_hin<c>) assert(`F_STAMP(f_din<c>) > f_lin<c>);
    if (f_hin<c>) assert(f_lin<c> < <NOW>);
    if (f_level<c> != 0) assert(f_hin<c> && f_snewest<c> == f_lin<c>);
    if (f_level<c> != 0 && f_hout<c>) assert(f_shead<c> > f_lout<c>);
    if (f_level<c> == 2) assert(f_shead<c> < f_stail<c>);
    if (f_hout<c>) assert(f_hin<c> && f_lout<c> <= f_lin<c>);
    if (f_rwe && f_re<c> && f_readable<c> && f_hout<c>) assert(`F_STAMP(f_rdin) > f_lout<c>);
end
// F_CLASS_END
`endif
