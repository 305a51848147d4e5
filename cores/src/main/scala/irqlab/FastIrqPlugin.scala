package irqlab

import spinal.core._
import spinal.lib._
import vexriscv._
import vexriscv.plugin._

/** What TrapCsrPlugin asks of FastIrqPlugin (found in the plugin list). */
trait FastIrqControl {
  def enabled: Bool             // mfastirq.EN: interrupts switch banks
  def entryBlocked: Bool        // an interrupt may not be taken this cycle
  def bankLive: Bool            // the other bank holds the context mepc returns to
  def injected(stage: Stage): Bool  // the stage holds an instruction the plugin injected
  def entryWaits: Bool          // memory holds a load waiting on the bus that an entry cannot leave behind
  def loadLeft: Bool            // a load the entry left behind is not written yet (mret, emret wait)
  def switchPending: Bool       // the next return (emret that switches back, mret) goes into another context
  def switchTarget: UInt        // ... to this pc (that context's saved pc)
  def contextCount: Int         // task contexts (1: none)
  def switchBusy: Bool          // a tyield waits (the drain runs, or a left load is not written)
  def boundReady: Bool          // the CLIC's request is bound to another task context, which waits for it
  def boundHold: Bool           // ... cannot be told this cycle: no interrupt is taken
  def boundTarget: UInt         // that context's saved pc
  def selectionValid: Bool      // the core has a next task for tswitch (mfastsel)
  def selectionTarget: UInt     // ... its context's saved pc
  def selectionStale: Bool      // ... they are a cycle old (a change last cycle): tswitch waits
}

/** The fast-interrupt extension (`fastirq`, after CV32RT, seed 000 Sec.
  * III-C/D): a second bank of the caller-saved registers, the interrupted
  * context saved in the background, and `emret`.
  *
  * CSRs (machine mode, custom space):
  *  - 0x7C0 mfastirq: bit 0 EN (interrupts switch banks), bit 1 E (the save
  *    set of the embedded ABI ilp32e; else ilp32). Reset 0: a `clic` core.
  *  - 0x7C1 mfastirqstatus (writes ignored): bit 0 the current bank, bit 1
  *    LIVE, bit 2 DRAINING, bits 12:8 the slots written so far.
  *
  * Interrupt entry with EN (cycle c0, TrapCsrPlugin.interruptEntry): the
  * caller-saved registers switch to the other bank (BankedRegFilePlugin,
  * `banked` = the ilp32 caller-saved set: ra, t0-t6, a0-a7); sp, gp, tp and
  * s0-s11 are shared. In c0+1 the plugin puts `addi sp, sp, -FRAME` into
  * decode (the fetcher is refilling then, so decode is free), so the
  * handler's first instruction (in decode at c0+2) sees the moved sp through
  * the normal bypasses and may call C at once. The interrupted context's
  * caller-saved registers are then copied to the frame [sp, sp+FRAME) by a
  * state machine through a port of its own (`fastirqSave_*`, soc/tcm.py: the
  * DTCM's second port), one word a cycle from the cycle the adjustment's
  * result is known (c0+3), in the order of `frameLayout`, mepc and mcause
  * (as the trap set them) last. FRAME: 80 bytes (ilp32: 16 registers, mepc,
  * mcause, two words of padding for the 16-byte alignment), 48 with E (10
  * registers, mepc, mcause).
  *
  * Rules:
  *  - Conflicts: a load or store in execute whose word lies in the frame but
  *    is not written yet waits (execute halted) until it is; everything else
  *    proceeds. Instructions older than the entry write the bank they were
  *    decoded with (REG_BANK), and the copy starts only when none of them is
  *    left in memory or writeBack, so a write-back in the cycle of the switch
  *    lands in the saved context and in the frame.
  *  - Nesting: an interrupt is not taken while the copy runs (at most 21
  *    cycles after the entry with ilp32, 15 with E, plus the rest of a bus
  *    access the entry left behind), nor while the injected adjustment is
  *    in decode or execute (two cycles). A nested entry switches to the
  *    bank whose context is in the frame, so depth is bounded by the stack
  *    only.
  *  - A load waiting on the bus in memory at the entry (EN): left behind if
  *    its destination is banked or x0 (it completes into the interrupted
  *    bank when it answers, `leave` below), else waited for (the handler
  *    shares that register).
  *  - LIVE: set on every entry, cleared when emret switches back. It is set
  *    at emret iff no entry happened since this handler's own, i.e. the other
  *    bank still holds the context it returns to and mepc/mcause are its own.
  *  - emret (TrapCsrPlugin; encoding 0x0000000B, custom-0): waits for the
  *    older instructions to leave memory and writeBack (VexRiscv's bypasses
  *    do not see banks) and for a load the entry left behind; then, with
  *    LIVE:
  *     - a pending interrupt that may be taken at the level returned to
  *       (mpie, level > mpil, > mintthresh): it is taken at once (tail
  *       chain): the bank, the frame, mepc and mpil stay, mcause/mil take the
  *       new id's; the copy goes on;
  *     - otherwise it returns as mret and switches the bank back; the copy
  *       stops, and `addi sp, sp, FRAME` is put into decode in the next cycle;
  *    without LIVE it does nothing: the code after it restores the context
  *    from the frame and returns with mret (the nested case).
  *
  * Where the frame goes (`saveThroughDataBus`): false, the save port of its
  * own (`fastirqSave_*`, one word a cycle while the drain runs); true, the
  * core's own data bus (DBusSimplePlugin's `dBus`, so the DTCM's data port
  * or any other memory) in the cycles execute issues no load or store: the
  * drain's store takes the bus when execute holds no load or store, or
  * holds one the stall rule held in the previous cycle (else that access
  * would wait for the drain and the drain for it); the access then waits
  * that cycle too, whatever its frame word, so an access released by the
  * stall rule goes one cycle later than with the save port. The store also
  * waits while memory holds a load stuck by writeBack (the split's held
  * answer must survive), and for `dBus.cmd.ready`. No `fastirqSave_*` ports
  * then; the rules above hold unchanged.
  *
  * Task contexts (`contexts` > 1, variant `fastctx`): the whole register file,
  * both banks, exists once per context (BankedRegFilePlugin `contexts`: the
  * context is the top of the RAM address; 8 contexts of 64 words fill the
  * 512 words of one ECP5 block RAM per read port, which the 64-word file
  * already occupies). A task that owns a context keeps its registers there
  * while other tasks run, so a task switch moves no register through
  * memory. CSRs:
  *  - 0x7C2 mfastctx: bits 3:0 the current context (read-only), bits 11:8
  *    the context the next return goes into (read/write; an interrupt entry
  *    sets it to the current one), bits 23:16 the number of contexts.
  *  - 0x7C3 mfastctxpc: the saved pc of the context in bits 11:8 of
  *    mfastctx (read/write): where that context goes on when switched into.
  * A return (emret that switches the bank back, or mret) with the next
  * context other than the current one switches: it waits for the older
  * instructions to leave memory and writeBack (they write the context they
  * ran in), saves mepc as the current context's pc and the bank the
  * interrupted code would have returned to (emret: the other; mret: this
  * one) as its own, then jumps to the next context's saved pc (which
  * becomes mepc), with that context's own bank, and puts
  * `addi sp, sp, FRAME` into decode, reading the next context's sp, as
  * emret does: a task is switched out after its entry moved sp down by
  * FRAME, and switched in with sp moved back. The switched-out task's drain
  * goes on to the end, so its frame in memory is complete too. An emret
  * with a switch pending does not chain: the switch comes first, and the
  * pending interrupt is taken in the next task.
  *
  * `tyield` (custom-0, I-type, funct3 1, rd = rs1 = 0: `.insn i 0x0B, 1,
  * x0, x0, skip`) switches from task code, with no trap: once no older
  * instruction that writes a register is left in memory or writeBack and no
  * drain runs, it saves pc + 4 + skip as the current context's pc and this
  * bank as its own, and jumps to the next context's pc with that context's
  * bank, setting MIE. Each context remembers whether it left in a trap (its
  * sp moved down by FRAME) or by tyield; only the former gets the injected
  * `addi sp, sp, FRAME` when switched into, by a return or by tyield.
  *
  * Bound interrupts (contexts > 1): 0x7C4 mfastbind, write: bits 19:16 a
  * context, bit 31 armed, bits 11:0 a CLIC id; read: the armed contexts, a
  * bit each. A request for an armed context's id, other than the current
  * context, with the current context not 0 and the core in task code (mil
  * and mintthresh 0) is taken as a switch, not a trap (TrapCsrPlugin's
  * take): the interrupted pc becomes the current context's pc (left as by
  * tyield: no FRAME), the next context becomes the interrupted one, the
  * woken context is disarmed, the CLIC's request claimed, mintthresh set
  * to its level, and the core jumps to the woken context's pc with its
  * bank (and its FRAME adjustment if it left in a trap). mepc, mcause, mie
  * and mil stay. The match of the CLIC's id is registered (used in the
  * next cycle while the id is kept and nothing changed the bindings or the
  * saved pcs), so no compare lies on the path to the fetch pc; while it
  * cannot be told, no interrupt is taken. emret does not chain into a
  * bound interrupt.
  *
  * The scheduler's view (contexts > 1): per context whether its task is
  * ready, its priority and its TCB; the RTOS keeps them (the FreeRTOS
  * port: the kernel's ready hook, docs/FREERTOS.md). CSRs:
  *  - 0x7C5 mfastready, write: bits 19:16 a context, bit 31 ready, bit 30
  *    forget (its TCB is no longer known), bits 4:0 its priority; read:
  *    bits 7:0 ready, 15:8 TCB known, a bit per context.
  *  - 0x7C6 mfasttcb: the current context's TCB (a write makes it known;
  *    write-only, reads 0).
  *  - 0x7C7 mfastdefer: the priorities (a bit each) at which the core
  *    chooses nothing (a task it does not hold is ready there).
  *  - 0x7C8 mfastsel (read-only): the TCB of the core's choice, 0 for none:
  *    the first context after the current one (round robin by number) that
  *    is ready, with its TCB known, at the current context's priority, if
  *    the current context is not 0, is ready, its priority not deferred,
  *    and mintthresh is 0.
  * `tswitch` (custom-0, I-type, funct3 2: `.insn i 0x0B, 2, x0, x0, skip`)
  * is tyield into the choice, or nothing (the code after it runs) without
  * one. The choice and its saved pc are registered (neither the compares
  * nor the mux lie on the path to the fetch pc); a cycle after a change of
  * their inputs (a switch, a write of these CSRs or of mfastctxpc,
  * mintthresh becoming 0 or not) they are a cycle old, and a read of
  * mfastsel and tswitch wait that cycle.
  */
class FastIrqPlugin(val saveThroughDataBus: Boolean = false, val contexts: Int = 1)
    extends Plugin[VexRiscv] with FastIrqControl {
  import FastIrqPlugin._

  var enabled: Bool = null
  var entryBlocked: Bool = null
  var bankLive: Bool = null
  var entryWaits: Bool = null
  var loadLeft: Bool = null
  var switchPending: Bool = null
  var switchTarget: UInt = null
  var switchBusy: Bool = null
  var boundReady: Bool = null
  var boundHold: Bool = null
  var boundTarget: UInt = null
  var selectionValid: Bool = null
  var selectionTarget: UInt = null
  var selectionStale: Bool = null
  override def contextCount: Int = contexts
  object INJECTED extends Stageable(Bool)
  object INJECTED_ENTRY extends Stageable(Bool)    // ... the entry's adjustment
  override def injected(stage: Stage): Bool = stage.input(INJECTED)

  var saveValid: Bool = null
  var saveAddress: UInt = null
  var saveData: Bits = null
  var saveReady: Bool = null
  private var trap: TrapCsrPlugin = null
  private var configCsr, statusCsr: CsrSlot = null
  private var contextCsr, contextPcCsr, bindCsr: CsrSlot = null
  private var readyCsr, tcbCsr, deferCsr, selCsr: CsrSlot = null

  override def setup(pipeline: VexRiscv): Unit = {
    trap = pipeline.plugins.collectFirst { case t: TrapCsrPlugin => t }
      .getOrElse(SpinalError("FastIrqPlugin needs TrapCsrPlugin"))
    val banks = pipeline.plugins.collectFirst { case b: RegFileBanks => b }
      .getOrElse(SpinalError("FastIrqPlugin needs BankedRegFilePlugin"))
    if (banks.bankCount != 2) SpinalError("FastIrqPlugin needs BankedRegFilePlugin(banks = 2)")
    for (r <- 1 until 32) if (banks.isBanked(r) != callerSavedI.contains(r))
      SpinalError(s"FastIrqPlugin: x$r banked=${banks.isBanked(r)}, expected the ilp32 caller-saved set")
    require(contexts >= 1 && contexts <= 16, "FastIrqPlugin: 1 to 16 contexts")
    if (banks.contextCount != contexts)
      SpinalError(s"FastIrqPlugin(contexts = $contexts) needs BankedRegFilePlugin(contexts = $contexts)")
    configCsr = trap.addCsr(0x7C0)
    statusCsr = trap.addCsr(0x7C1)
    if (contexts > 1) {
      contextCsr = trap.addCsr(0x7C2)
      contextPcCsr = trap.addCsr(0x7C3)
      bindCsr = trap.addCsr(0x7C4)
      readyCsr = trap.addCsr(0x7C5)
      tcbCsr = trap.addCsr(0x7C6)
      deferCsr = trap.addCsr(0x7C7)
      selCsr = trap.addCsr(0x7C8)
      selCsr.hold = Some(Bool())        // driven in build: the choice is a cycle old
    }
    switchPending = Bool()
    switchTarget = UInt(32 bits)
    switchBusy = Bool()
    boundReady = Bool()
    boundHold = Bool()
    boundTarget = UInt(32 bits)
    selectionValid = Bool()
    selectionTarget = UInt(32 bits)
    selectionStale = Bool()
    enabled = Bool()
    entryBlocked = Bool()
    bankLive = Bool()
    entryWaits = Bool()
    loadLeft = Bool()
    if (saveThroughDataBus) {
      saveValid = Bool()
      saveAddress = UInt(32 bits)
      saveData = Bits(32 bits)
      saveReady = Bool()
    } else {
      saveValid = out(Bool()).setName("fastirqSave_valid")
      saveAddress = out(UInt(32 bits)).setName("fastirqSave_address")
      saveData = out(Bits(32 bits)).setName("fastirqSave_data")
      saveReady = in(Bool()).setName("fastirqSave_ready")
    }
  }

  override def build(pipeline: VexRiscv): Unit = {
    import pipeline._
    import pipeline.config._
    val banks = pipeline.plugins.collectFirst { case b: RegFileBanks => b }.get
    val dbus = pipeline.plugins.collectFirst { case d: DBusSimplePlugin => d }.get
    val srcPlugin = pipeline.plugins.collectFirst { case s: SrcPlugin => s }
      .getOrElse(SpinalError("FastIrqPlugin needs SrcPlugin"))

    // An Area, so that the signals have names (FastIrqPlugin_*) in the Verilog.
    val logic = new Area {
      // ------------------------------------------------------------ CSRs
      val en = RegInit(False)
      val eabi = RegInit(False)
      enabled := en
      when(configCsr.write.valid) {
        en := configCsr.write.payload(0)
        eabi := configCsr.write.payload(1)
      }
      configCsr.read := B(0, 30 bits) ## eabi ## en

      // ------------------------------------------------ bank and LIVE
      val bank = RegInit(U(0, 1 bits))
      val live = RegInit(False)
      banks.bank := bank
      bankLive := live
      val frameBytes = eabi ? U(frameBytesE, 12 bits) | U(frameBytesI, 12 bits)
      val entry = en && trap.interruptEntry
      val back = trap.emretSwitch

      // ------------------------------------------------ task contexts
      // (contexts > 1: the header's "Task contexts")
      val contextBits = log2Up(contexts) max 1
      val context = Reg(UInt(contextBits bits)) init (0)
      val contextNext = Reg(UInt(contextBits bits)) init (0)
      val liveBank = Vec(Reg(UInt(1 bits)) init (0), contexts)   // a switched-out context's own bank
      val contextPc = Vec(Reg(UInt(32 bits)) init (0), contexts) // ... and where it goes on
      val trapped = Vec(RegInit(False), contexts)               // ... switched out in a trap: sp moved by FRAME
      switchPending := (if (contexts > 1) contextNext =/= context else False)
      switchTarget := (if (contexts > 1) contextPc(contextNext) else U(0, 32 bits))
      val tyield = trap.tyieldSwitch
      val switchNow = ((back || trap.mretSwitch) && switchPending) || tyield

      // Bound interrupts (the header's "Bound interrupts"): per context, the
      // interrupt id it waits for and whether it waits (armed). Which
      // context waits for the CLIC's id, and that context's pc, are
      // registered from this cycle's id and used in the next if the id is
      // kept, so no compare lies on the path from the CLIC to the fetch pc.
      val bound = if (contexts > 1) trap.boundSwitch else False
      val binding = (contexts > 1) generate new Area {
        val idWidth = trap.clic.id.getWidth
        val bindId = Vec(Reg(UInt(idWidth bits)) init (0), contexts)
        val armed = Vec(RegInit(False), contexts)
        val hits = Vec((0 until contexts).map(c => armed(c) && bindId(c) === trap.clic.id))
        val first = OHMasking.first(hits.asBits)
        val valid = RegNext(hits.orR) init (False)
        val target = RegNext(OHToUInt(first).resize(contextBits bits))
        val pc = RegNext(MuxOH(first, contextPc))
        // A switch, or a write of a context's pc or binding, makes the
        // registered view one cycle old.
        val stale = RegNext(switchNow || bound || contextPcCsr.write.valid || bindCsr.write.valid ||
                            contextCsr.write.valid) init (False)
        boundReady := valid && trap.clic.idKept && !stale && target =/= context && context =/= 0
        boundHold := armed.orR && (!trap.clic.idKept || stale)
        boundTarget := pc
      }
      if (contexts == 1) {
        boundReady := False
        boundHold := False
        boundTarget := 0
      }

      // The scheduler's view (the header's "The scheduler's view"): per
      // context whether its task is ready, its priority and its TCB; the
      // priorities at which a yield defers to the kernel. The choice for
      // tswitch, the next ready context of the current one's priority after
      // it (round robin by context number), is registered with its saved
      // pc, so that neither the compares nor the 8:1 mux lie on the path to
      // the fetch pc; after a change it is one cycle old, and tswitch waits
      // that cycle, as a read of mfastsel does.
      val tswitch = if (contexts > 1) trap.tswitchSwitch else False
      val sched = (contexts > 1) generate new Area {
        val ready = Vec(RegInit(False), contexts)
        val prio = Vec(Reg(UInt(5 bits)) init (0), contexts)
        val tcb = Vec(Reg(UInt(32 bits)) init (0), contexts)
        val tcbValid = Vec(RegInit(False), contexts)
        val defer = Reg(Bits(32 bits)) init (0)
        // Candidates by context number (one-hot, so that each saved pc and
        // TCB is one input of one mux): the first above the current one,
        // else the first from 1 on.
        val mine = prio(context)
        val hits = Vec((0 until contexts).map(i =>
          if (i == 0) False else ready(i) && tcbValid(i) && prio(i) === mine && context =/= i))
        val above = Vec((0 until contexts).map(i => hits(i) && context < i))
        val first = above.orR ? OHMasking.first(above.asBits) | OHMasking.first(hits.asBits)
        val now = hits.orR && context =/= 0 && ready(context) && !defer(mine) && trap.thresholdZero
        val choice = RegNext(OHToUInt(first).resize(contextBits bits))
        val valid = RegNext(now) init (False)
        val pc = RegNext(MuxOH(first, contextPc))
        val changed = RegNext(switchNow || bound || readyCsr.write.valid || tcbCsr.write.valid ||
                              deferCsr.write.valid || contextPcCsr.write.valid || trap.thresholdWrite) init (False)
        selectionValid := valid
        selectionTarget := pc
        selectionStale := changed
        val read = RegNext(now ? MuxOH(first, tcb).asBits | B(0, 32 bits))
      }
      if (contexts == 1) {
        selectionValid := False
        selectionTarget := 0
        selectionStale := False
      }

      // Every switch: the context switched into, and whether its sp comes
      // back up by FRAME (switched out in a trap: yes; by tyield or by a
      // bound interrupt: no).
      val switchAny = switchNow || bound
      val switchTo = if (contexts > 1) bound ? binding.target | (tswitch ? sched.choice | contextNext) else contextNext
      val switchAdjusts = switchAny && (if (contexts > 1) trapped(switchTo) else False)
      if (contexts > 1) {
        banks.context := switchAny ? switchTo | context         // the injected adjustment is the next context's
        banks.writeContext := context
      }

      // ---------------------------------- the injected sp adjustment
      // Decided in the entry's (or emret's) cycle, in decode in the next:
      // the register file reads sp for it in the deciding cycle (inject).
      val adjust = (entry ? (U(0, 12 bits) - frameBytes) | frameBytes).asBits
      val addiSp = adjust ## B"00010" ## B"000" ## B"00010" ## B"0010011"     // addi sp, sp, adjust
      // (With one context the expressions are those of `fastirq` before task
      // contexts, so that its Verilog, and what formal/ mutates in it, stay.)
      def adjusts: Bool = if (contexts > 1) entry || (back && !switchPending) || switchAdjusts else entry || back
      when(adjusts) {
        banks.inject.valid := True
        banks.inject.payload := addiSp
      }
      val injecting = RegNext(adjusts) init (False)
      val injectWord = RegNext(addiSp)
      val injectIsEntry = RegNext(entry)
      decode.insert(INJECTED) := injecting
      decode.insert(INJECTED_ENTRY) := injecting && injectIsEntry
      when(injecting) {
        // decode is free in this cycle (the fetcher refills after the jump)
        // and cannot stall (nothing older waits in memory: TrapCsrPlugin).
        decode.arbitration.isValid := True
        decode.input(INSTRUCTION) := injectWord
      }
      assert(!(injecting && decode.arbitration.isStuck), "FastIrqPlugin: the injected adjustment stalled in decode", ERROR)

      when(entry) { bank := ~bank; live := True }
      when(back) { bank := ~bank; live := False }
      if (contexts > 1) {
        when(switchAny) {
          context := switchTo
          // emret: the bank it would return to; mret, tyield, bound: this one
          liveBank(context) := (back && !tyield && !bound) ? ~bank | bank
          bank := liveBank(switchTo)
          // tyield's immediate: how far past it the task goes on (the code
          // it falls through to when it does not switch, skipped)
          val resume = execute.input(PC) + 4 + execute.input(INSTRUCTION)(31 downto 20).asSInt.resize(32).asUInt
          contextPc(context) := bound ? trap.boundEpc | (tyield ? resume | trap.mepcValue)
          trapped(context) := !tyield && !bound
        }
        // A bound interrupt disarms its context; the next return or tyield
        // goes back into the interrupted one (the woken task's way back when
        // it may not run yet).
        when(bound) {
          contextNext := context
          binding.armed(binding.target) := False
        }
        when(entry) { contextNext := context }          // a new handler returns where it came from
        when(bindCsr.write.valid) {
          val c = bindCsr.write.payload(16 + contextBits - 1 downto 16).asUInt
          binding.bindId(c) := bindCsr.write.payload(binding.idWidth - 1 downto 0).asUInt
          binding.armed(c) := bindCsr.write.payload(31)
        }
        bindCsr.read := binding.armed.asBits.resize(32)

        // The scheduler's view: mfastready (a context's ready bit and
        // priority; forget: its TCB is no longer known), mfasttcb (the
        // current context's TCB), mfastdefer, mfastsel (read-only).
        when(readyCsr.write.valid) {
          val c = readyCsr.write.payload(16 + contextBits - 1 downto 16).asUInt
          sched.ready(c) := readyCsr.write.payload(31)
          sched.prio(c) := readyCsr.write.payload(4 downto 0).asUInt
          when(readyCsr.write.payload(30)) { sched.tcbValid(c) := False }
        }
        readyCsr.read := B(0, 16 bits) ## sched.tcbValid.asBits.resize(8) ## sched.ready.asBits.resize(8)
        when(tcbCsr.write.valid) {
          sched.tcb(context) := tcbCsr.write.payload.asUInt
          sched.tcbValid(context) := True
        }
        tcbCsr.read := 0                                         // write-only: a read mux of 8 TCBs saved
        when(deferCsr.write.valid) { sched.defer := deferCsr.write.payload }
        deferCsr.read := sched.defer
        selCsr.read := sched.read
        selCsr.hold.get := sched.changed
        when(contextCsr.write.valid) { contextNext := contextCsr.write.payload(8 + contextBits - 1 downto 8).asUInt }
        when(contextPcCsr.write.valid) {
          contextPc(contextNext) := contextPcCsr.write.payload(31 downto 2).asUInt @@ U"00"
        }
        contextCsr.read := B(contexts, 8 bits).resize(16) ## B(0, 4 bits) ## contextNext.asBits.resize(4) ##
                           B(0, 4 bits) ## context.asBits.resize(4)
        contextPcCsr.read := contextPc(contextNext).asBits
      }

      // ----------------------------------- a load the entry leaves behind
      // A load still waiting on the bus in memory (Wishbone: a peripheral's
      // register, 2-3 cycles) when the request comes would hold the whole
      // pipeline behind it, and so the handler's first fetch (VexRiscv's
      // stages move together). If its destination is banked (or x0), the
      // entry does not wait for it: memory's halt is lifted in the take's
      // cycle, the load moves on to writeBack (writing the bus's word of that
      // cycle into the interrupted bank, a placeholder) and retires; its
      // answer is caught here when it comes and written to its register in
      // the interrupted bank in the cycle after (`sideWrite`). Nothing reads
      // that register before: the drain starts only after the write (oldDone),
      // emret and mret wait for it (TrapCsrPlugin), a nested entry waits for
      // the drain, and the handler's own bank is another. The handler's
      // loads wait in execute until the answer is in, so the bus's one
      // answer is the left load's (soc/tcm.py DBusSplit: a TCM answer would
      // share `rsp`). A load to a shared register (sp, gp, tp, s0-s11,
      // which the handler reads and writes) is waited for, as before.
      val leave = new Area {
        val load = memory.arbitration.isValid && memory.input(dbus.MEMORY_ENABLE) && !memory.input(dbus.MEMORY_STORE)   // memory holds a load
        val waits = load && !dbus.dBus.rsp.ready
        val rd = memory.input(INSTRUCTION)(Riscv.rdRange).asUInt
        val rdBanked = banks.isBanked(rd)
        val writes = memory.input(REGFILE_WRITE_VALID)
        entryWaits := en && waits && writes && !rdBanked
        val now = entry && waits
        when(now) { memory.arbitration.haltItself := False }

        val pending = RegInit(False)        // the answer has not come yet
        val arrived = RegInit(False)        // it came last cycle: written now
        val reg = Reg(UInt(5 bits))
        val regContext = Reg(UInt(contextBits bits))
        val regBank = Reg(UInt(1 bits))
        val doesWrite = Reg(Bool())
        val funct3 = Reg(Bits(3 bits))
        val low = Reg(UInt(2 bits))
        val data = Reg(Bits(32 bits))
        arrived := False
        when(pending && dbus.dBus.rsp.ready) {
          pending := False
          arrived := True
          data := dbus.dBus.rsp.data
        }
        when(now) {
          pending := True
          reg := rd
          regContext := context
          regBank := memory.input(RegBank.REG_BANK)
          doesWrite := writes
          funct3 := memory.input(INSTRUCTION)(14 downto 12)
          low := memory.input(dbus.MEMORY_ADDRESS_LOW)
        }
        // The word as a load of this size and sign gives it (little endian).
        val shifted = data |>> (low @@ U"000")
        val unsigned = funct3(2)
        val word = funct3(1 downto 0).mux(
          0 -> (unsigned ? shifted(7 downto 0).resize(32) | shifted(7 downto 0).asSInt.resize(32).asBits),
          1 -> (unsigned ? shifted(15 downto 0).resize(32) | shifted(15 downto 0).asSInt.resize(32).asBits),
          default -> shifted)
        when(arrived && doesWrite) {
          banks.sideWrite.valid := True
          banks.sideWrite.context := regContext
          banks.sideWrite.bank := regBank
          banks.sideWrite.reg := reg
          banks.sideWrite.data := word
        }
        loadLeft := pending || arrived

        // The handler's loads wait in execute (stores go on: they answer nothing).
        when(pending && execute.arbitration.isValid && execute.input(dbus.MEMORY_ENABLE) &&
             !execute.input(dbus.MEMORY_STORE)) {
          execute.arbitration.haltItself := True
          dbus.dBus.cmd.valid := False
        }
        // What the answer's capture relies on: no other load meets the bus's
        // answer while it is awaited, and none is in memory when the side
        // write halts writeBack (its answer would be gone by the next cycle).
        assert(!(pending && load), "FastIrqPlugin: a load in memory while a left load's answer is awaited", ERROR)
        assert(!(arrived && load), "FastIrqPlugin: a load in memory in the left load's write cycle", ERROR)
      }

      // ------------------------------------------------ the copy (drain)
      val draining = RegInit(False)
      val oldBank = Reg(UInt(1 bits))
      val oldContext = Reg(UInt(contextBits bits))
      val slot = Reg(UInt(5 bits)) init (0)          // the slot written next
      val primed = RegInit(False)                   // the RAM word of `slot` arrives this cycle
      val baseKnown = RegInit(False)
      val base = Reg(UInt(32 bits))
      val savedMepc = Reg(Bits(32 bits))
      val savedMcause = Reg(Bits(32 bits))
      val regCount = eabi ? U(callerSavedE.size, 5 bits) | U(callerSavedI.size, 5 bits)
      val slotCount = regCount + 2

      // The frame base: the adjustment's result, as it leaves execute.
      val adjustInMemory = memory.arbitration.isValid && memory.input(INJECTED_ENTRY)
      val baseNow = baseKnown ? base | memory.input(REGFILE_WRITE_DATA).asUInt
      val baseReady = baseKnown || adjustInMemory
      when(adjustInMemory) { base := baseNow; baseKnown := True }

      // Instructions decoded before the switch that may still write the old bank.
      // After a switch into another context none is left (the switch waits
      // for them), and the drain goes on reading the switched-out context.
      def oldIn(s: Stage) = s.arbitration.isValid && s.input(RegBank.REG_BANK) === oldBank && !s.input(INJECTED)
      val oldDone = if (contexts > 1) (oldContext =/= context) || (!oldIn(memory) && !oldIn(writeBack) && !loadLeft)
                    else !oldIn(memory) && !oldIn(writeBack) && !loadLeft
      val writeFire = draining && primed && baseReady && saveReady
      val nextSlot = writeFire ? (slot + 1) | slot
      // The layout: slot -> register (the same order for both ABIs; E stops early).
      val layout = Vec(callerSavedI.map(r => U(r, 5 bits)))
      val regWord = banks.drainRead(oldContext, oldBank, layout(nextSlot.resize(4)))
      primed := draining && oldDone && !(writeFire && slot === slotCount - 1)
      val word = (slot < regCount) ? regWord | ((slot === regCount) ? savedMepc | savedMcause)
      saveValid := draining && primed && baseReady
      saveAddress := baseNow + (slot @@ U"00").resized
      saveData := word
      when(writeFire) {
        slot := slot + 1
        when(slot === slotCount - 1) { draining := False }
      }
      when(entry) {
        draining := True
        oldBank := bank
        oldContext := context
        slot := 0
        primed := False
        baseKnown := False
      }
      // mepc and mcause as the trap set them (readable from the cycle after),
      // minhv cleared: the handler's pointer-table fetch, if any, is over
      // long before anything restores this frame (a nested entry waits for
      // the copy), and an mret with minhv would read mepc as a table entry.
      when(RegNext(entry) init (False)) {
        savedMepc := trap.mepcValue.asBits
        savedMcause := trap.mcauseRead & ~B(1L << 30, 32 bits)
      }
      // The frame is dropped, unless the return switches into another
      // context: then the switched-out task's frame is completed, so that
      // its context is in memory too (the port's fallback loads it there).
      when(if (contexts > 1) back && !switchPending else back) { draining := False }

      // ------------------------------------------------------ conflicts
      // A load or store in execute to a frame word not written yet waits:
      // its address in [written, frameEnd) = [base + 4*slot, base + FRAME).
      // The frame lies in the DTCM (the save port writes nowhere else), so
      // it does not wrap, and that is: offset = address - base in
      // [4*slot, FRAME). The offset is taken from the address's operands
      // (SrcPlugin: SRC_ADD = SRC1 + SRC2 for a load or store) in one carry
      // chain after a carry-save step, not from SRC_ADD through two more
      // 32-bit compares (three carry chains in a row on the ULX3S).
      execute plug new Area {
        import execute._
        val x = input(SRC1).asUInt
        val y = input(srcPlugin.SRC2_FORCE_ZERO) ? U(0, 32 bits) | input(SRC2).asUInt
        val z = ~baseNow
        val sum = x ^ y ^ z
        val carry = ((x & y) | (x & z) | (y & z)) |<< 1
        val offset = sum + (carry | U(1, 32 bits))         // x + y + ~base + 1
        val low = offset(6 downto 0)
        val inFrame = offset(31 downto 7) === 0 && low >= (slot @@ U"00") && low < frameBytes.resize(7)
        val conflict = arbitration.isValid && input(dbus.MEMORY_ENABLE) && draining &&
                       (!baseReady || inFrame)
        // The access halts itself (haltItself, its bus command withheld
        // here), not execute as another stage's halt (haltByOther) would:
        // execute's `isStuckByOthers` gates the jumps it makes (mret, emret:
        // TrapCsrPlugin's `go`), hence the fetch pc and the ITCM's address,
        // and a load or store never jumps. With haltByOther this compare lay
        // on that path: 42 MHz on the ULX3S, not 50 (cores/README.md).
        when(conflict) {
          arbitration.haltItself := True
          dbus.dBus.cmd.valid := False
        }

        // The drain through the data bus (saveThroughDataBus): after the
        // stall rule above, so that its command wins the bus.
        val viaDataBus = saveThroughDataBus generate new Area {
          val access = arbitration.isValid && input(dbus.MEMORY_ENABLE)
          val waited = RegNext(conflict) init (False)       // the stall rule held `access` last cycle
          val loadHeld = memory.arbitration.isValid && memory.input(dbus.MEMORY_ENABLE) &&
                         !memory.input(dbus.MEMORY_STORE) && memory.arbitration.isStuckByOthers
          val grant = saveValid && (!access || waited) && !loadHeld
          saveReady := grant && dbus.dBus.cmd.ready
          when(grant) {
            arbitration.haltItself setWhen (access)
            dbus.dBus.cmd.valid := True
            dbus.dBus.cmd.wr := True
            dbus.dBus.cmd.address := saveAddress
            dbus.dBus.cmd.payload.data := saveData
            dbus.dBus.cmd.size := 2
          }
        }
      }

      entryBlocked := draining || injecting ||
        (execute.arbitration.isValid && execute.input(INJECTED))
      switchBusy := draining || loadLeft

      statusCsr.read := B(0, 19 bits) ## slot ## B(0, 5 bits) ## draining ## live ## bank
    }
    logic.setName("FastIrqPlugin")
  }
}

object FastIrqPlugin {
  /** The caller-saved registers of ilp32 in the frame's order: ra, t0-t2,
    * a0-a7, t3-t6. The first 10 are those of ilp32e (ra, t0-t2, a0-a5). */
  val callerSavedI: Seq[Int] = Seq(1, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31)
  val callerSavedE: Seq[Int] = callerSavedI.take(10)
  /** Frame sizes: the registers, mepc, mcause, rounded up to the ABI's stack
    * alignment (16 bytes for ilp32, 4 for ilp32e). */
  val frameBytesI: Int = ((callerSavedI.size + 2) * 4 + 15) / 16 * 16
  val frameBytesE: Int = (callerSavedE.size + 2) * 4
}
