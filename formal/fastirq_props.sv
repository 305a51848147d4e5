// Properties of FastIrqPlugin (cores/src/main/scala/irqlab/FastIrqPlugin.scala)
// on the whole `fastirq-native` core, placed inside IrqlabCore_fastirq_native
// by formal/fastirq.py, which also binds every f_* name used here.
//
// The environment (assumptions) is the SoC's (soc/tcm.py), stated as a
// protocol, with the data free:
//  * reset in the first cycle only;
//  * iBus: the ITCM. cmd_ready = 1, the answer one cycle after the command,
//    no error, the word any instruction of F_LEGAL below;
//  * dBus: cmd_ready free (Wishbone wait states); a load's answer comes one or
//    more cycles after its command (free delay, free data), and is held,
//    data unchanged, until the next command fires (DBusSplit); no error;
//  * save port: ready free;
//  * CLIC and vector prefetch inputs: free in every cycle.

// ---------------------------------------------------------------- environment
reg f_init = 1'b1;
always @(posedge clk) f_init <= 1'b0;
always @(*) assume(reset == f_init);

// Instructions: RV32I without fence/ecall/ebreak/wfi, no M extension; CSR
// accesses to mstatus, mscratch, mepc, mcause, mintthresh and mfastirqstatus
// (mfastirq is set by the start state, formal/fastirq.py: the firmware sets
// it once); mret and emret. Synchronous exceptions are assumed away below.
function f_legal(input [31:0] i);
  reg [6:0] op; reg [2:0] f3; reg [6:0] f7; reg [11:0] csr;
  begin
    op = i[6:0]; f3 = i[14:12]; f7 = i[31:25]; csr = i[31:20];
    case (op)
      7'b0110111, 7'b0010111, 7'b1101111: f_legal = 1'b1;                    // lui auipc jal
      7'b1100111: f_legal = f3 == 3'd0;                                       // jalr
      7'b1100011: f_legal = f3 != 3'd2 && f3 != 3'd3;                         // branches
      7'b0000011: f_legal = f3 != 3'd3 && f3 != 3'd6 && f3 != 3'd7;           // loads
      7'b0100011: f_legal = f3 <= 3'd2;                                       // stores
      7'b0010011: f_legal = f3 == 3'd1 ? f7 == 7'd0 :
                            f3 == 3'd5 ? (f7 == 7'd0 || f7 == 7'b0100000) : 1'b1;
      7'b0110011: f_legal = f7 == 7'd0 || (f7 == 7'b0100000 && (f3 == 3'd0 || f3 == 3'd5));
      7'b1110011: f_legal = i == 32'h30200073 ||                              // mret
                            (f3 != 3'd0 && f3 != 3'd4 &&
                             (csr == 12'h300 || csr == 12'h340 || csr == 12'h341 || csr == 12'h342 ||
                              csr == 12'h347 || csr == 12'h7c1));
      7'b0001011: f_legal = i == 32'h0000000b;                                // emret
      default: f_legal = 1'b0;
    endcase
  end
endfunction

reg f_ifired = 1'b0;
always @(posedge clk) f_ifired <= iBus_cmd_valid && iBus_cmd_ready && !reset;
always @(*) begin
  assume(iBus_cmd_ready);
  assume(iBus_rsp_valid == f_ifired);
  assume(!iBus_rsp_payload_error);
  if (iBus_rsp_valid) assume(f_legal(iBus_rsp_payload_inst));
end

wire f_dfire = dBus_cmd_valid && dBus_cmd_ready && !reset;   // (the first cycle's values are not reset yet)
reg f_dwait = 1'b0;                    // a load's answer is awaited
reg f_dheld = 1'b0;                    // an answer is held
reg [31:0] f_ddata;
always @(posedge clk) begin
  if (dBus_rsp_ready) f_ddata <= dBus_rsp_data;
  if (f_dfire) begin
    f_dwait <= !dBus_cmd_payload_wr;
    f_dheld <= 1'b0;
  end else if (f_dwait && dBus_rsp_ready) begin
    f_dwait <= 1'b0;
    f_dheld <= 1'b1;
  end
end
always @(*) begin
  assume(!dBus_rsp_error);
  if (!f_dwait && !f_dheld) assume(!dBus_rsp_ready);
  if (f_dheld) assume(dBus_rsp_ready && dBus_rsp_data == f_ddata);
end

// No synchronous exception (the handlers and the code they interrupt raise
// none: a misaligned access or jump would be one).
always @(*) if (f_trap_taken) assume(f_trap_interrupt);

// sp stays word-aligned (the ABI keeps it 16-byte aligned, 4 with ilp32e).
always @(*) assume(`F_RF[2][1:0] == 2'b00);

wire f_ent = f_entry && !reset;        // an interrupt entry (the first cycle's values are not reset yet)

// ------------------------------------------------------------ the frame's shadow
// The register of frame slot k (FastIrqPlugin.callerSavedI, the frame layout
// of cores/README.md); ilp32e stops after 10.
function [4:0] f_reg(input [4:0] k);
  case (k)
    5'd0: f_reg = 5'd1;  5'd1: f_reg = 5'd5;  5'd2: f_reg = 5'd6;  5'd3: f_reg = 5'd7;
    5'd12: f_reg = 5'd28; 5'd13: f_reg = 5'd29; 5'd14: f_reg = 5'd30; 5'd15: f_reg = 5'd31;
    default: f_reg = k + 5'd6;                      // 4..11: a0..a7 = x10..x17
  endcase
endfunction
function f_banked(input [4:0] r);
  f_banked = r == 5'd1 || (r >= 5'd5 && r <= 5'd7) || (r >= 5'd10 && r <= 5'd17) || r >= 5'd28;
endfunction

(* anyconst *) reg [31:0] f_A;         // one frame word, any: what holds for it holds for all
wire f_sw = fastirqSave_valid && fastirqSave_ready && !reset;
reg f_act = 1'b0;                      // an entry's frame is being written or is complete, not dropped
reg f_frozen = 1'b0;                   // its first word is written: the interrupted bank is frozen
reg f_old = 1'b0;                      // the interrupted bank
reg f_E = 1'b0;                        // ilp32e frame
reg [4:0] f_k = 5'd0;                  // the frame words written so far
reg [31:0] f_base = 32'd0;             // the first word's address
reg f_acc = 1'b0;                      // the handler accessed word f_A since the entry
reg [1:0] f_since = 2'd0;              // cycles since the entry, saturating at 3
reg [31:0] f_mepc0 = 32'd0, f_mcause0 = 32'd0;   // mepc and mcause as the trap set them
wire [4:0] f_nregs = f_E ? 5'd10 : 5'd16;
wire [4:0] f_nslots = f_nregs + 5'd2;
wire [31:0] f_expect = f_k < f_nregs ? `F_RF[{f_old, f_reg(f_k)}] :
                       f_k == f_nregs ? f_mepc0 : f_mcause0;
always @(posedge clk) begin
  if (f_since != 2'd3) f_since <= f_since + 2'd1;
  if (f_dfire && dBus_cmd_payload_address[31:2] == f_A[31:2]) f_acc <= 1'b1;
  if (f_sw) begin
    f_k <= f_k + 5'd1;
    if (f_k == 5'd0) f_base <= fastirqSave_address;
    f_frozen <= 1'b1;
  end
  if (f_back) begin
    f_act <= 1'b0;
    f_frozen <= 1'b0;
  end
  if (f_since == 2'd1) begin           // the cycle after the trap's CSR writes
    f_mepc0 <= f_mepc;
    f_mcause0 <= f_mcause & ~32'h40000000;   // minhv cleared
  end
  if (f_ent) begin
    f_act <= 1'b1;
    f_frozen <= 1'b0;
    f_old <= f_bank;
    f_E <= f_eabi;
    f_k <= 5'd0;
    f_acc <= 1'b0;
    f_since <= 2'd0;
  end
end

`ifdef FP_FRAME
always @(*) if (!reset) begin
  if (f_sw) begin
    assert(f_act);                                    // only an entry's frame is written
    assert(f_k < f_nslots);                           // each slot once
    assert(fastirqSave_address[1:0] == 2'd0);
    if (f_k != 5'd0) assert(fastirqSave_address == f_base + {f_k, 2'b00});   // in order, contiguous
    assert(fastirqSave_data == f_expect);             // the register / mepc / mcause of its slot
    if (fastirqSave_address[31:2] == f_A[31:2]) assert(!f_acc);   // no handler access came first
  end
  // From the frame's first word until emret switches back (or the next
  // entry), the interrupted bank's registers are not written.
  if (f_frozen && f_rf_we && f_rf_wa[5] == f_old && f_banked(f_rf_wa[4:0])) assert(0);
end
`endif

// ---------------------------------------------------------- the load left behind
reg f_left = 1'b0;                     // the entry left a load waiting in memory
reg f_lgot = 1'b0;                     // its answer came
reg [4:0] f_lrd = 5'd0;
reg [2:0] f_lf3 = 3'd0;
reg [1:0] f_llow = 2'd0;
reg [31:0] f_ldata = 32'd0;
wire f_mem_load_waits = f_mem_valid && f_mem_enable && !f_mem_store && !dBus_rsp_ready;
wire [31:0] f_lsh = f_ldata >> {f_llow, 3'b000};
wire [31:0] f_lword = f_lf3[1:0] == 2'd0 ? (f_lf3[2] ? {24'd0, f_lsh[7:0]} : {{24{f_lsh[7]}}, f_lsh[7:0]}) :
                      f_lf3[1:0] == 2'd1 ? (f_lf3[2] ? {16'd0, f_lsh[15:0]} : {{16{f_lsh[15]}}, f_lsh[15:0]}) :
                      f_lsh;
always @(posedge clk) begin
  if (f_left && !f_lgot && f_dwait && dBus_rsp_ready) begin
    f_lgot <= 1'b1;
    f_ldata <= dBus_rsp_data;
  end
  if (f_ent) begin
    f_left <= f_mem_load_waits && f_mem_writes;
    f_lgot <= 1'b0;
    f_lrd <= f_mem_instr[11:7];
    f_lf3 <= f_mem_instr[14:12];
    f_llow <= f_mem_low;
  end
end

`ifdef FP_LEFT
always @(*) if (!reset) begin
  // A load waiting to a shared register (the handler's too) is not left.
  if (f_ent && f_mem_load_waits && f_mem_writes) assert(f_mem_instr[11:7] == 5'd0 || f_banked(f_mem_instr[11:7]));
  // When the drain writes the first word, the load's register in the
  // interrupted bank holds its answer, shifted and extended as it asks (and
  // from then on the bank is frozen: FP_FRAME).
  if (f_sw && f_k == 5'd0 && f_left && f_lrd != 5'd0) begin
    assert(f_lgot);
    assert(`F_RF[{f_old & f_banked(f_lrd), f_lrd}] == f_lword);
  end
  // Until then the handler's bank is written by the handler's own
  // instructions only (writeBack firing, their bank, their rd).
  if (f_act && !f_frozen && f_left && f_rf_we && f_rf_wa[5] != f_old && f_banked(f_rf_wa[4:0])) begin
    assert(f_wb_fire && f_wb_bank != f_old && f_wb_writes && f_rf_wa[4:0] == f_wb_instr[11:7]);
  end
end
`endif

// ---------------------------------------------------------------------- emret
wire [11:0] f_fbytes = f_E ? 12'd48 : 12'd80;
reg f_back_d = 1'b0, f_chain_d = 1'b0, f_live_d = 1'b0, f_draining_d = 1'b0;
reg [31:0] f_mepc_d = 32'd0;
reg [11:0] f_id_d = 12'd0;
reg [11:0] f_fbytes_d = 12'd0;
always @(posedge clk) begin
  f_back_d <= f_back && !reset;
  f_chain_d <= f_chain && !reset;
  f_live_d <= f_live;
  f_draining_d <= f_draining;
  f_mepc_d <= f_mepc;
  f_id_d <= clic_id;
  f_fbytes_d <= f_fbytes;
end

`ifdef FP_EMRET
always @(*) if (!reset) begin
  // Every claim of the CLIC's winner is a taking of it: an entry or emret's
  // chain, with the winner's id (mnxti is outside the instruction set here).
  if (clic_claim) assert((f_irq_entry || f_chain) && clic_claimId == clic_id);
  assert(!(f_back && f_chain));
  if (f_back) begin                    // return: to mepc, in the interrupted bank
    assert(f_live && f_act && f_bank != f_old);
    assert(f_jump_valid && f_jump_target == f_mepc);
  end
  if (f_back_d) begin                  // the cycle after: the interrupted bank, sp + FRAME injected
    assert(f_bank == f_old && !f_live && !f_draining);
    assert(f_injecting && f_inject_word == {f_fbytes_d, 5'd2, 3'd0, 5'd2, 7'b0010011});
  end
  if (f_chain) begin                   // chain: the pending winner's handler, nothing of the frame lost
    assert(f_live && f_act && f_jump_valid && f_jump_target == f_trap_target);
  end
  if (f_chain_d) begin
    assert(f_live && f_bank != f_old && f_draining == f_draining_d);
    assert(f_mepc == f_mepc_d);        // the interrupted code's return address stays
    assert(f_mcause[11:0] == f_id_d && f_mcause[31]);
  end
end
`endif

// ------------------------------------------------------------------- nesting
reg [31:0] f_sp0 = 32'd0;              // the interrupted sp (register file, before the injected addi writes)
reg f_nested = 1'b0;                   // this entry interrupted a live, complete frame
reg [31:0] f_obase = 32'd0;            // that frame's base
reg [11:0] f_obytes = 12'd0;
always @(posedge clk) begin
  if (f_since == 2'd1) f_sp0 <= `F_RF[2];
  if (f_ent) begin
    f_nested <= f_act;
    f_obase <= f_base;
    f_obytes <= f_fbytes;
  end
end
// ABI: a handler's stack grows below its frame, and the stack does not wrap.
always @(*) if (f_since == 2'd2 && f_nested) assume(`F_RF[2] <= f_obase && `F_RF[2] >= 32'h100);

`ifdef FP_NEST
always @(*) if (!reset) begin
  // An entry while a frame is live comes only after that frame is complete.
  if (f_ent && f_act) assert(f_k == f_nslots);
  // Every frame lies right below the interrupted sp ...
  if (f_sw && f_k == 5'd0) assert(fastirqSave_address + f_fbytes == f_sp0);
  // ... so a nested frame never reaches into the live one.
  if (f_sw && f_nested) assert(fastirqSave_address - f_obase >= {20'd0, f_obytes});
end
`endif

`ifdef FP_REACH
always @(*) cover(f_ent);
always @(*) cover(!reset && fastirqSave_valid && fastirqSave_ready);
`endif
