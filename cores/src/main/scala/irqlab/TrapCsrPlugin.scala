package irqlab

import spinal.core._
import spinal.lib._
import vexriscv._
import vexriscv.Riscv._
import vexriscv.plugin._

import scala.collection.mutable.ArrayBuffer

/** What the CLIC presents to the core (soc/clic.py: registered outputs).
  * `above`/`aboveAlt`: valid and level above the threshold the core gave
  * last cycle (ClicThreshold's `now`/`alt`); `idKept`: id equals last
  * cycle's id. The CLIC computes them from its next outputs, so the core's
  * interrupt decision starts at registers (TrapCsrPlugin, "The take"). */
case class ClicRequest(idWidth: Int) extends Bundle {
  val valid = Bool()
  val id = UInt(idWidth bits)
  val level = UInt(8 bits)
  val shv = Bool()
  val above = Bool()
  val aboveAlt = Bool()
  val idKept = Bool()
}

/** The thresholds the core gives the CLIC for next cycle's `above`/`aboveAlt`. */
case class ClicThreshold() extends Bundle {
  val now = UInt(8 bits)         // max(mil, mintthresh)
  val alt = UInt(8 bits)         // the same after execute's instruction, if it acts this cycle
}

/** Trap events, for the retire port (RetirePortPlugin) and later plugins
  * (fastirq: bank switch on interrupt entry). All valid in the cycle the trap
  * is taken. */
trait TrapEvents {
  def trapTaken: Bool          // an exception or an interrupt is taken this cycle
  def trapIsInterrupt: Bool
  def trapTarget: UInt         // the pc loaded into the fetcher (handler or table entry)
  def trapCode: UInt           // exception code or interrupt id
  /** `emret` takes a pending interrupt instead of returning (tail chain,
    * FastIrqPlugin): valid in the cycle emret is in execute and jumps to the
    * handler (trapTaken stays 0; trapIsInterrupt/trapTarget/trapCode are
    * set). The emret itself then retires as a return. */
  def trapChain: Bool
  def isMret(stage: Stage): Bool   // mret, or an emret that returns or chains
}

/** A CSR slot that another plugin adds to the CSR space (fastirq's config and
  * bank CSRs): it drives `read`, and sees `write` (valid one cycle, with the
  * new value) when a CSR instruction writes the address. */
case class CsrSlot(address: Int) {
  val read = Bits(32 bits)
  val write = Flow(Bits(32 bits))
  /** An access waits in execute while this holds (the plugin's value is a
    * cycle old); None: never. */
  var hold: Option[Bool] = None
}

/** irqlab's machine-mode CSR and trap plugin, with a CLIC interface (RISC-V
  * CLIC draft v0.9, 2021-07-20, machine mode only; docs/CLIC.md lists what is
  * implemented). It replaces VexRiscv's CsrPlugin, whose trap entry cannot
  * load a handler pointer from a table, restore an interrupt level on mret or
  * serve mnxti.
  *
  * Pipeline rules (decode, execute, memory, writeBack):
  *  - Exceptions: an instruction whose stage raises one (any ExceptionService
  *    port) waits there, halted, until every older stage is empty; then the
  *    trap is taken from that stage (the instruction and everything younger
  *    are flushed). A port that fires only for one cycle (a bus error
  *    response) is latched for the wait. So traps are precise and never
  *    coincide with a retirement.
  *  - Interrupts are taken at a fixed pipeline point, between memory and
  *    execute, in the first cycle c0 in which the CLIC's winner may be
  *    taken (MIE, level > max(mil, mintthresh)); nothing the interrupted
  *    code has in flight moves that cycle:
  *     - while a request waits, execute is held (haltByOther), and in c0
  *       the take flushes it, so its instruction has no side effect (no bus
  *       command, no CSR access, no mret) and the trap drops it with decode
  *       and the fetcher; execute is not held in c0 itself, so the fetcher
  *       sends the handler's first fetch in c0; mepc = the oldest
  *       dropped instruction's pc, or, when execute and decode are empty
  *       (the fetcher refilling after a jump), the target of the jump in
  *       memory this cycle, or the pc the fetcher resumes at (`resumePc`:
  *       the successor of the last instruction that left decode, or the
  *       last jump's target);
  *     - the instructions in memory and writeBack are older: they finish
  *       after the entry (a load still waiting on the bus holds the
  *       stages behind it, the handler's first instructions among them,
  *       until it answers; fastirq leaves such a load behind: FastIrqPlugin).
  *       They can no longer trap:
  *       their exceptions are known by c0 (access faults cannot happen,
  *       cores/README.md), and an exception pending in memory is taken
  *       first (it is older). The trap's jump (memory stage, above
  *       BranchPlugin's priority) overrides a branch resolving in memory;
  *     - a divide in memory (MulDivIterativePlugin, up to 34 cycles) is
  *       aborted: flushed, mepc = its pc, it runs again after mret;
  *     - exceptions of decode and execute wait while the request stands
  *       (the interrupt drops their instruction; it traps again after mret).
  *    So the entry costs the same whatever is in flight: the pipeline drain,
  *    a divide, a load-use interlock or a branch in flight change nothing.
  *  - The decision starts at registers (the ULX3S's 50 MHz: its path runs
  *    through the trap's jump and the fetch pc into the ITCM's address).
  *    The level test arrives from the CLIC as registered verdicts: the core
  *    gives it max(mil, mintthresh) (`clic_threshold_now`) and the same
  *    after execute's instruction if that acts this cycle (`_alt`: an mret,
  *    mil = mpil; a mintthresh write, its new value from the instruction
  *    alone), and the CLIC registers `level > threshold` with its next
  *    outputs (`clic_above`, `clic_aboveAlt`). The core takes `aboveAlt` in
  *    the cycle after such an instruction acted, `above` otherwise: exactly
  *    this cycle's mil and mintthresh, with no cycle added. mil's other
  *    writes need no verdict: after a take mie is 0, after an mnxti claim
  *    the CLIC holds irq_valid (and the verdicts) low. The CLIC's
  *    arbitration tree and the comparators stay on paths into registers.
  *    The retire port shows the entry in the first cycle from c0 without a
  *    retirement (RetirePortPlugin): c0, or one or two cycles later, and
  *    says which (retire_trapDelay), so a trace knows c0.
  *  - Selective hardware vectoring (shv): with `vectorPrefetch` (the native
  *    variants: soc/tcm.py VectorPrefetch reads mtvt + 4*id through the
  *    TCMs' free data-port cycles) the trap jumps straight to the handler
  *    when the entry is ready (minhv = 0), waiting for it at most
  *    `vectorWait` cycles. Ready: the prefetcher's registered `valid` names
  *    the (registered) word at last cycle's entry address, and clic.id and
  *    mtvt are unchanged since (registered too: the CLIC's `clic_idKept`,
  *    mtvt's change at its write; a store to the table clears `valid`), so a
  *    changed id, mtvt or entry never jumps to a stale handler; a new id's
  *    word is ready in the third cycle it is presented. Otherwise (Wishbone variants, an entry outside the
  *    TCMs, a busy port) the trap loads the pc with the entry's address and
  *    sets `vectorFetch`; the word fetched from there reaches decode as if it
  *    were an instruction, and is instead used as the jump target (& ~1): the
  *    pointer table of the spec, read by the fetch unit. mret with minhv=1
  *    re-reads the entry at mepc the same way.
  *  - CSR instructions and mret act in execute, and wait there only while an
  *    older instruction may still trap (an exception pending in memory;
  *    writeBack never traps) or, for minstret reads, until the older
  *    instructions have retired. CSR results bypass from execute.
  */
object TrapCsrPlugin {
  /** emret (FastIrqPlugin): custom-0, I-type, funct3 0, rd = rs1 = 0, imm 0. */
  val EMRET = M"00000000000000000000000000001011"
  /** tyield (FastIrqPlugin with task contexts): custom-0, I-type, funct3 1,
    * rd = rs1 = 0; the immediate: where the task goes on, from the next
    * instruction. */
  val TYIELD = M"-------------00000001000000001011"
  /** tswitch (FastIrqPlugin with task contexts): custom-0, I-type, funct3 2,
    * rd = rs1 = 0: tyield into the core's own choice of the next task
    * (mfastsel), or nothing where it has none; the immediate as tyield's. */
  val TSWITCH = M"-------------00000010000000001011"
}

class TrapCsrPlugin(val clicIdWidth: Int = 12, val resetMtvec: Long = 0x00000000L, val vectorWait: Int = 2,
                    val vectorPrefetch: Boolean = false)
    extends Plugin[VexRiscv] with ExceptionService with TrapEvents {
  import TrapCsrPlugin.{EMRET, TYIELD, TSWITCH}

  object IS_CSR extends Stageable(Bool)
  object IS_MRET extends Stageable(Bool)
  object IS_ECALL extends Stageable(Bool)
  object IS_EBREAK extends Stageable(Bool)
  object CSR_ILLEGAL extends Stageable(Bool)
  object CSR_HOLD_SLOT extends Stageable(Bool)      // the CSR is a slot that may hold its access (CsrSlot.hold)
  object IS_EMRET extends Stageable(Bool)
  object EMRET_RETURNS extends Stageable(Bool)     // the emret returned or chained (not a fall-through)
  object IS_TYIELD extends Stageable(Bool)
  object IS_TSWITCH extends Stageable(Bool)

  // The CSR map (the read values are in build). Legality is decoded from the
  // instruction in decode, off the execute-to-fetch trap path.
  val readWriteCsrs = Seq(0x300, 0x301, 0x304, 0x305, 0x307, 0x320, 0x340, 0x341, 0x342, 0x343, 0x344,
                          0x345, 0x347, 0x348, 0x349, 0xB00, 0xB02, 0xB80, 0xB82)
  val readOnlyCsrs = Seq(0x346, 0xC00, 0xC02, 0xC80, 0xC82, 0xF11, 0xF12, 0xF13, 0xF14)

  case class PortInfo(stage: Stage, priority: Int, port: Flow[ExceptionCause])
  val exceptionPorts = ArrayBuffer[PortInfo]()
  override def newExceptionPort(stage: Stage, priority: Int = 0, codeWidth: Int = 4): Flow[ExceptionCause] = {
    val p = Flow(ExceptionCause(codeWidth))
    exceptionPorts += PortInfo(stage, priority, p)
    p
  }
  override def isExceptionPending(stage: Stage): Bool = False

  val slots = ArrayBuffer[CsrSlot]()
  /** Add a CSR; call in setup. */
  def addCsr(address: Int): CsrSlot = { val s = CsrSlot(address); slots += s; s }

  var clic: ClicRequest = null
  var clicThreshold: ClicThreshold = null
  var vecAddress: UInt = null                    // vectorPrefetch: the entry mtvt + 4*id (out)
  var vecValid: Bool = null                      // ... vecData is the word at last cycle's vecAddress (in)
  var vecData: Bits = null
  var clicClaim: Bool = null
  var clicClaimId: UInt = null
  var jumpDecode, jumpExecute, jumpMemory: Flow[UInt] = null
  var executePort: Flow[ExceptionCause] = null
  var trapTaken, trapIsInterrupt, trapChain: Bool = null
  /** emret returns as mret with the bank switched back (FastIrqPlugin). */
  var emretSwitch: Bool = null
  /** mret returns into another task context (FastIrqPlugin with contexts):
    * valid in the cycle it jumps. */
  var mretSwitch: Bool = null
  /** tyield switches into the next task context (FastIrqPlugin with
    * contexts): valid in the cycle it jumps. */
  var tyieldSwitch: Bool = null
  /** ... and it is a tswitch, into the core's choice (mfastsel). */
  var tswitchSwitch: Bool = null
  /** mintthresh is 0 (no critical section): the core's choice needs it. */
  var thresholdZero: Bool = null
  /** mintthresh is written this cycle (a CSR write, a bound interrupt). */
  var thresholdWrite: Bool = null
  /** An interrupt bound to a task context is taken as a switch into that
    * context (FastIrqPlugin with contexts, "Bound interrupts"): valid in the
    * cycle it jumps; `boundEpc` is where the interrupted task goes on. */
  var boundSwitch: Bool = null
  var boundEpc: UInt = null
  /** The current mepc and mcause (as read by a CSR instruction). */
  var mepcValue: UInt = null
  var mcauseRead: Bits = null
  /** FastIrqPlugin, when in the plugin list: it adds emret. */
  var fast: Option[FastIrqControl] = None
  var trapTarget, trapCode: UInt = null
  /** One-cycle pulse when an interrupt is taken (fastirq hooks here). The
    * instructions then in memory and writeBack are older than the trap and
    * may still write the register file in the next cycles. */
  var interruptEntry: Bool = null
  override def isMret(stage: Stage): Bool =
    if (fast.isDefined) stage.input(IS_MRET) || stage.input(EMRET_RETURNS) else stage.input(IS_MRET)

  override def setup(pipeline: VexRiscv): Unit = {
    import pipeline.config._
    // The take overrides the divider's halt (below): its build must come later.
    val divIndex = pipeline.plugins.indexWhere(_.isInstanceOf[MulDivIterativePlugin])
    if (divIndex > pipeline.plugins.indexWhere(_ eq this))
      SpinalError("TrapCsrPlugin must come after the divider (MulDivIterativePlugin) in the plugin list")
    val decoder = pipeline.service(classOf[DecoderService])
    val csrCommon = List[(Stageable[_ <: BaseType], Any)](
      IS_CSR -> True,
      REGFILE_WRITE_VALID -> True,
      BYPASSABLE_EXECUTE_STAGE -> True,             // the read value is ready in execute
      BYPASSABLE_MEMORY_STAGE -> True
    )
    val csrReg = csrCommon ++ List(RS1_USE -> True)
    for (d <- List(IS_CSR, IS_MRET, IS_ECALL, IS_EBREAK)) decoder.addDefault(d, False)
    fast = pipeline.plugins.collectFirst { case f: FastIrqControl => f }
    if (fast.isDefined) {
      decoder.addDefault(IS_EMRET, False)
      decoder.add(EMRET, List(IS_EMRET -> True))
    }
    if (fast.exists(_.contextCount > 1)) {
      decoder.addDefault(IS_TYIELD, False)
      decoder.add(TYIELD, List(IS_TYIELD -> True))
      decoder.addDefault(IS_TSWITCH, False)
      decoder.add(TSWITCH, List(IS_TSWITCH -> True))
    }
    decoder.add(List(
      CSRRW -> csrReg, CSRRS -> csrReg, CSRRC -> csrReg,
      CSRRWI -> csrCommon, CSRRSI -> csrCommon, CSRRCI -> csrCommon,
      MRET -> List(IS_MRET -> True),
      ECALL -> List(IS_ECALL -> True),
      EBREAK -> List(IS_EBREAK -> True),
      WFI -> Nil                                 // a hint: no wait, no side effect
    ))

    val jumps = pipeline.service(classOf[JumpService])
    jumpDecode = jumps.createJumpInterface(pipeline.decode, priority = 10)
    jumpExecute = jumps.createJumpInterface(pipeline.execute, priority = 10)
    jumpMemory = jumps.createJumpInterface(pipeline.memory, priority = 10)
    executePort = newExceptionPort(pipeline.execute, priority = 0)

    clic = in(ClicRequest(clicIdWidth)).setName("clic")
    clicThreshold = out(ClicThreshold()).setName("clic_threshold")
    clicClaim = out(Bool()).setName("clic_claim")
    clicClaimId = out(UInt(clicIdWidth bits)).setName("clic_claimId")
    if (vectorPrefetch) {
      vecAddress = out(UInt(32 bits)).setName("vecPrefetch_address")
      vecValid = in(Bool()).setName("vecPrefetch_valid")
      vecData = in(Bits(32 bits)).setName("vecPrefetch_data")
    }

    trapTaken = Bool()
    trapIsInterrupt = Bool()
    trapChain = Bool()
    emretSwitch = Bool()
    mretSwitch = Bool()
    tyieldSwitch = Bool()
    tswitchSwitch = Bool()
    thresholdZero = Bool()
    thresholdWrite = Bool()
    boundSwitch = Bool()
    boundEpc = UInt(32 bits)
    mepcValue = UInt(32 bits)
    mcauseRead = Bits(32 bits)
    trapTarget = UInt(32 bits)
    trapCode = UInt(12 bits)
    interruptEntry = Bool()
  }

  override def build(pipeline: VexRiscv): Unit = {
    import pipeline._
    import pipeline.config._

    // ---------------------------------------------------------------- state
    val mie = RegInit(False)                        // mstatus.MIE
    val mpie = RegInit(False)                       // mstatus.MPIE (= mcause.mpie)
    val mepc = Reg(UInt(32 bits)) init (0)
    val mcauseInterrupt = RegInit(False)
    val minhv = RegInit(False)
    val mpil = Reg(UInt(8 bits)) init (0)
    val mcauseCode = Reg(UInt(12 bits)) init (0)
    val mtval = Reg(Bits(32 bits)) init (0)
    val mtvecBase = Reg(UInt(26 bits)) init (U(resetMtvec >> 6, 26 bits))  // [31:6]; mode hardwired 11
    val mtvtBase = Reg(UInt(26 bits)) init (0)     // [31:6]
    val mscratch = Reg(Bits(32 bits)) init (0)
    val mil = Reg(UInt(8 bits)) init (0)           // mintstatus.mil
    val mintthresh = Reg(UInt(8 bits)) init (0)
    val inhibitCycle, inhibitInstret = RegInit(False)
    val mcycle = Reg(UInt(64 bits)) init (0)
    val minstret = Reg(UInt(64 bits)) init (0)
    val vectorFetch = RegInit(False)               // the next word at decode is a handler pointer

    def fastInjected(s: Stage) = fast.map(_.injected(s)).getOrElse(False)
    when(!inhibitCycle) { mcycle := mcycle + 1 }
    when(!inhibitInstret && writeBack.arbitration.isFiring && !fastInjected(writeBack)) { minstret := minstret + 1 }

    val mtvecValue = (mtvecBase @@ U"000000").asBits | B"11".resized
    val mtvtValue = (mtvtBase @@ U"000000")
    val mstatusValue = Bits(32 bits)
    mstatusValue := 0
    mstatusValue(3) := mie
    mstatusValue(7) := mpie
    mstatusValue(12 downto 11) := B"11"            // MPP: machine mode only
    val mcauseValue = mcauseInterrupt ## minhv ## B"11" ## mpie ## B"000" ## mpil ## B"0000" ## mcauseCode
    mepcValue := mepc
    mcauseRead := mcauseValue

    clicClaim := False
    clicClaimId := clic.id
    trapTaken := False
    trapIsInterrupt := False
    trapChain := False
    emretSwitch := False
    mretSwitch := False
    tyieldSwitch := False
    tswitchSwitch := False
    thresholdZero := mintthresh === 0
    boundSwitch := False
    trapTarget := mtvecBase @@ U"000000"
    trapCode := 0
    interruptEntry := False
    jumpDecode.valid := False
    jumpExecute.valid := False
    jumpMemory.valid := False
    jumpDecode.payload.assignDontCare()
    jumpExecute.payload.assignDontCare()
    jumpMemory.payload.assignDontCare()

    def stagesOlderThan(s: Stage) = stages.drop(stages.indexOf(s) + 1)
    /** The stage holds a load or store (of whichever data-bus plugin the core has). */
    def memoryAccess(pipeline: VexRiscv, s: Stage): Bool = pipeline.plugins.collectFirst {
      case d: DBusSimplePlugin => s.input(d.MEMORY_ENABLE)
      case d: DBusCachedPlugin => s.input(d.MEMORY_ENABLE)
    }.get
    /** The stage holds a store (data cache variants only: DBusCachedPlugin). */
    def cachedStore(pipeline: VexRiscv, s: Stage): Bool = pipeline.plugins.collectFirst {
      case d: DBusCachedPlugin => s.input(d.MEMORY_ENABLE) && s.input(d.MEMORY_WR)
    }.get
    def olderEmpty(s: Stage): Bool = stagesOlderThan(s).map(!_.arbitration.isValid).foldLeft(True)(_ && _)
    def jumpOf(s: Stage) = if (s == decode) jumpDecode else if (s == execute) jumpExecute else jumpMemory

    /** The common part of every trap entry (exception or interrupt). */
    def enterTrap(pc: UInt): Unit = {
      mepc := pc
      mpil := mil
      mpie := mie
      mie := False
      trapTaken := True
    }

    // -------------------------------------------------------- interrupts
    // The entry point (see the header): the interrupt is taken between
    // memory and execute in the first cycle c0 it may be taken; execute and
    // decode are flushed, memory and writeBack finish their instructions
    // (or a divide in memory is aborted).
    // The level test (valid, level > max(mil, mintthresh)) arrives as a
    // register: the CLIC compares its next outputs with the thresholds the
    // core gives it (clicThreshold, set in execute), so no comparator lies
    // between the decision's inputs and the fetch pc (the ULX3S's 50 MHz).
    // `alt` is the threshold execute's instruction leaves if it acts (mret:
    // mil = mpil; a mintthresh write); its verdict holds in the cycle after
    // it acted (thrActed). So the test is the one of this cycle's mil and
    // mintthresh, except after the two other writes of mil, where it cannot
    // matter: a take (mie is 0 next cycle) and an mnxti claim (the CLIC
    // holds irq_valid, and its verdicts, low next cycle).
    val thrAct = Bool()                            // execute: an mret or a mintthresh write acts
    val thrActed = RegNext(thrAct) init (False)
    val irqLevelOk = thrActed ? clic.aboveAlt | clic.above
    val irqRequest = mie && irqLevelOk && !vectorFetch && !fast.map(_.entryBlocked).getOrElse(False)

    // The pc of the next instruction to enter execute, for a trap taken with
    // execute and decode empty (the fetcher refilling after a jump): the
    // sequential successor of the last instruction that left decode, or the
    // target of the jump the fetcher last took (chosen as the fetcher does).
    val fetcher = pipeline.plugins.collectFirst { case f: IBusFetcherImpl => f }.get
    val jumpsByStage = fetcher.jumpInfos.sortWith((a, b) =>
      stages.indexOf(a.stage) > stages.indexOf(b.stage) ||
        (stages.indexOf(a.stage) == stages.indexOf(b.stage) && a.priority > b.priority))
    val anyJump = jumpsByStage.map(_.interface.valid).reduce(_ || _)
    val jumpTarget = MuxOH(OHMasking.first(jumpsByStage.map(_.interface.valid).asBits),
                           jumpsByStage.map(_.interface.payload))
    val resumePc = Reg(UInt(32 bits)) init (0)
    when(decode.arbitration.isFiring && !fastInjected(decode)) { resumePc := decode.input(PC) + 4 }
    when(anyJump) { resumePc := jumpTarget }

    // ------------------------------------------------------- vector fetch
    // The handler pointer arrives at decode in place of an instruction. The
    // decoder's view of it (illegal instruction, hazards) is dropped with it.
    val vectorWord = vectorFetch && decode.arbitration.isValid && !fastInjected(decode)
    // The decoder sees the pointer as an instruction; an instruction cache
    // (IBusCachedPlugin) flushes itself from decode on FLUSH_ALL (fence.i),
    // which the decoder's don't-cares may set for a pointer's bits.
    for (c <- pipeline.plugins.collect { case c: IBusCachedPlugin => c })
      when(vectorWord) { decode.input(c.FLUSH_ALL) := False }
    when(vectorWord) {
      decode.arbitration.flushIt := True
      decode.arbitration.flushNext := True
      jumpDecode.valid := True
      jumpDecode.payload := decode.input(INSTRUCTION).asUInt & ~U(1, 32 bits)
      vectorFetch := False
      minhv := False
    }

    // -------------------------------------------------------- exceptions
    val trapStages = exceptionPorts.map(_.stage).distinct.sortBy(s => -stages.indexOf(s))
    val stageTraps = for (s <- trapStages) yield new Area {
      val stage = s
      val ports = exceptionPorts.filter(_.stage == s).sortBy(-_.priority)
      val portValid = ports.map(_.port.valid).reduce(_ || _)
      val portCode = PriorityMux(ports.map(p => p.port.valid -> p.port.code.resize(4)))
      val portTval = PriorityMux(ports.map(p => p.port.valid -> p.port.badAddr.asBits.resize(32)))
      val latched = RegInit(False)
      val latchedCode = Reg(UInt(4 bits))
      val latchedTval = Reg(Bits(32 bits))
      val valid = s.arbitration.isValid && (latched || portValid) &&
        (if (s == decode) !vectorFetch && !irqRequest else if (s == execute) !irqRequest else True)
      val code = latched ? latchedCode | portCode
      val tval = latched ? latchedTval | portTval
      val take = valid && olderEmpty(s)
      when(valid && !take) {
        s.arbitration.haltItself := True
        when(!latched) {
          latched := True
          latchedCode := portCode
          latchedTval := portTval
        }
      }
      when(take || s.arbitration.isFlushed || !s.arbitration.isValid) { latched := False }
      when(take) {
        enterTrap(s.input(PC))
        mcauseInterrupt := False
        mcauseCode := code.resized
        minhv := False
        mtval := tval
        trapCode := code.resized
        s.arbitration.flushIt := True
        s.arbitration.flushNext := True
        jumpOf(s).valid := True
        jumpOf(s).payload := mtvecBase @@ U"000000"
      }
    }

    // The take. A divide in memory is aborted (flushed: it is mepc and runs
    // again after mret); any other instruction in memory is older than the
    // trap and completes after it (it can no longer trap: its exceptions are
    // known now, and access faults cannot happen), so only a pending memory
    // exception (older, precise) delays the interrupt. A branch or jump in
    // memory that jumps this cycle makes its target mepc; the trap's own jump
    // (memory stage, higher priority) overrides the branch's.
    val hasDivider = pipeline.plugins.exists(_.isInstanceOf[MulDivIterativePlugin])
    val divInMemory = if (hasDivider) memory.arbitration.isValid && memory.input(MulDivIterativePlugin.IS_DIV) else False
    val memoryTrap = stageTraps.filter(_.stage == memory).map(_.valid).foldLeft(False)(_ || _)
    val memoryJumps = jumpsByStage.filter(j => j.stage == memory && (j.interface ne jumpMemory)).map(_.interface)
    val memoryJump = memoryJumps.map(_.valid).foldLeft(False)(_ || _)
    val memoryJumpTarget = if (memoryJumps.isEmpty) U(0, 32 bits)
                           else MuxOH(OHMasking.first(memoryJumps.map(_.valid).asBits), memoryJumps.map(_.payload))
    // A data cache (DBusCachedPlugin) answers a load in writeBack, and on a
    // miss (or a store-to-load collision) re-runs it by a jump from writeBack
    // after the refill; a store or an uncached access talks to the bus from
    // there. So an access in writeBack is waited for: the take waits until
    // writeBack holds none. An access in memory has done nothing yet
    // (DataCache only reads its tags and data there): the take drops it, as
    // it drops execute's (mepc = its pc, it runs again after mret), and
    // while a request stands it is held in memory, so that it cannot move
    // into writeBack with the access ahead of it and complete before the
    // trap. Without that hold, a load behind the read-back of a pend (the
    // FreeRTOS port's yield: store to clicintip, read it back, then the
    // caller's next load) would enter writeBack as the read-back completes
    // and run before the switch: the task would read a flag before the
    // other task set it (fw/ctxsw's yield would count 1001 yields of 1000;
    // fw/clictest's Tsync checks the rule). It is held only while writeBack
    // holds no store: DataCache keeps a load's collision with a store
    // writing the cache in the same cycle only while the load moves on with
    // writeBack (its stage registers follow writeBack's, not memory's), so a
    // load held then would lose it if the request went away before the take
    // and the load went on. Only variants with a data cache have this logic.
    val cachedData = pipeline.plugins.exists(_.isInstanceOf[DBusCachedPlugin])
    val accessInMemory = if (!cachedData) False else memory.arbitration.isValid && memoryAccess(pipeline, memory)
    val accessInWriteBack = if (!cachedData) False else writeBack.arbitration.isValid && memoryAccess(pipeline, writeBack)
    val storeInWriteBack = if (!cachedData) False else writeBack.arbitration.isValid && cachedStore(pipeline, writeBack)
    val accessInFlight = accessInWriteBack
    val dropsMemory = if (cachedData) divInMemory || accessInMemory else divInMemory  // flushed by the take; mepc = its pc
    val irqEpc = dropsMemory ? memory.input(PC) | (memoryJump ? memoryJumpTarget |
                 (execute.arbitration.isValid ? execute.input(PC) |
                 (decode.arbitration.isValid ? decode.input(PC) | resumePc)))
    val vecEntry = mtvtValue + (clic.id.resize(30) @@ U"00")
    // The pointer already read (vectorPrefetch): the trap goes straight to
    // the handler, as if the table fetch had completed (minhv = 0). A pointer
    // not ready yet (a new id, the port busy) is waited for, up to
    // vectorWait cycles (the table fetch costs more), then fetched.
    // vecValid and vecData are registered (they name last cycle's
    // vecAddress, soc/tcm.py VectorPrefetch), so the entry's adder, the
    // prefetcher's address compare and the RAM's output stay off the path
    // to the fetch pc; the address comes from clic.id, a register, so the
    // CLIC's arbitration tree stays off the path to the TCM's address (the
    // ULX3S's 50 MHz). The word is this cycle's entry when neither clic.id
    // nor mtvt changed since, both known from registers (the CLIC's idKept;
    // mtvtKept, from the CSR write), so no compare lies on that path either.
    if (vectorPrefetch) vecAddress := vecEntry
    val mtvtChange = Bool()                        // execute: a write gives mtvt another value
    val mtvtKept = RegNext(!mtvtChange) init (True)
    val vecEntrySame = if (vectorPrefetch) clic.idKept && mtvtKept else False
    val vecHit = if (vectorPrefetch) vecValid && vecEntrySame else False
    val vecReady = if (vectorPrefetch) clic.shv && vecHit else False
    val vecHandler = if (vectorPrefetch) vecData.asUInt & ~U(1, 32 bits) else U(0, 32 bits)
    val irqAge = Reg(UInt(log2Up(vectorWait + 1) bits)) init (0)
    when(!irqRequest) { irqAge := 0 } elsewhen (irqAge =/= vectorWait) { irqAge := irqAge + 1 }
    val vecOk = if (vectorPrefetch) !clic.shv || vecHit || irqAge === vectorWait else True
    // fastirq: a load still waiting on the bus in memory is left behind
    // (FastIrqPlugin: it completes into the interrupted bank), unless its
    // destination is a register the handler shares; then it is waited for.
    val fastWaits = fast.map(_.entryWaits).getOrElse(False)
    // The stages before memory in the take's cycle. Execute (so decode and
    // the fetcher too) does not move while a request stands and waits: its
    // instruction has no side effect yet (no bus command, no CSR access), so
    // the trap may drop it. In the take's own cycle nothing before memory is
    // held: the take's flush withholds every side effect there (execute is
    // flushed: no bus command, no CSR access, no jump), so the fetcher sends
    // the handler's first fetch in that cycle, not the next. The halts lifted
    // then: execute's (the request's own, a CSR access waiting for older
    // instructions), decode's (a load-use interlock) and an aborted divide's
    // in memory. `takeNow` is the take without its two late inputs, both
    // harmless here: a load waiting in memory that fastirq must wait for
    // (memory's halt holds these stages anyway) and an exception in memory
    // (its trap flushes them). So the data bus's answer and exceptions stay off the path from
    // the decision to the fetch (the ULX3S's 50 MHz).
    // A bound interrupt (FastIrqPlugin's "Bound interrupts") is taken from
    // task code only (mil and mintthresh 0: not in a handler, not in a
    // critical section) as a switch into its task's context, once memory
    // holds no instruction that writes a register or accesses memory (a
    // divide is dropped, as by any take) and writeBack none that writes a
    // register: VexRiscv's bypasses, the one of last cycle's write into
    // decode among them, compare register numbers only, and the next
    // task's first instruction (the injected sp adjustment: next cycle)
    // must meet nothing of the interrupted task's. It needs no handler
    // pointer.
    val hasContexts = fast.exists(_.contextCount > 1)
    val boundWanted = if (hasContexts) fast.get.boundReady && mil === 0 && mintthresh === 0 else False
    val olderBusy = (memory.arbitration.isValid && !divInMemory &&
                     (memory.input(REGFILE_WRITE_VALID) || memoryAccess(pipeline, memory))) ||
                    (writeBack.arbitration.isValid && writeBack.input(REGFILE_WRITE_VALID))
    val boundHold = if (hasContexts) fast.get.boundHold || (boundWanted && olderBusy) else False
    val takeNow = if (hasContexts) irqRequest && (vecOk || boundWanted) && !accessInFlight && !boundHold
                  else irqRequest && vecOk && !accessInFlight
    val irqTake = takeNow && !memoryTrap && !fastWaits
    when(irqRequest && !takeNow) { execute.arbitration.haltByOther := True }
    // With a data cache: the access in memory waits with execute (see above).
    if (cachedData) when(irqRequest && !takeNow && accessInMemory && !storeInWriteBack) { memory.arbitration.haltByOther := True }
    when(takeNow) {
      for (s <- Seq(decode, execute)) {
        s.arbitration.haltItself := False
        s.arbitration.haltByOther := False
      }
      when(divInMemory) { memory.arbitration.haltItself := False }
    }
    val irqTarget = vecReady ? vecHandler | (clic.shv ? vecEntry | (mtvecBase @@ U"000000"))
    /** What taking the CLIC's winner sets, on entry and on emret's chain. */
    def takeWinner(): Unit = {
      mcauseInterrupt := True
      mcauseCode := clic.id.resized
      mil := clic.level
      minhv := clic.shv && !vecReady
      vectorFetch := clic.shv && !vecReady
      clicClaim := clic.shv                       // edge pending cleared on vectored entry
      trapIsInterrupt := True
      trapTarget := irqTarget
      trapCode := clic.id.resized
    }
    def takeInterrupt(): Unit = {
      enterTrap(irqEpc)
      takeWinner()
      interruptEntry := True
      when(dropsMemory) { memory.arbitration.flushIt := True }
      memory.arbitration.flushNext := True        // execute, decode, the fetcher
      jumpMemory.valid := True
      jumpMemory.payload := irqTarget
    }
    boundEpc := irqEpc
    if (!hasContexts) when(irqTake) { takeInterrupt() }
    else when(irqTake) {
      when(boundWanted) {
        // No trap: mepc, mcause, mie, mil stay; the woken task starts at
        // its interrupt's level (mintthresh), as its handler would.
        boundSwitch := True
        clicClaim := True                         // an edge's pending bit cleared
        mintthresh := clic.level
        when(dropsMemory) { memory.arbitration.flushIt := True }
        memory.arbitration.flushNext := True
        jumpMemory.valid := True
        jumpMemory.payload := fast.get.boundTarget
      } otherwise { takeInterrupt() }
    }

    decode plug new Area {
      import decode._
      val instr = input(INSTRUCTION)
      val address = instr(31 downto 20).asUInt
      val writes = instr(13 downto 12) === 1 || instr(19 downto 15) =/= 0
      val known = (readWriteCsrs ++ readOnlyCsrs ++ slots.map(_.address)).map(a => address === a).reduce(_ || _)
      val readOnly = readOnlyCsrs.map(a => address === a).reduce(_ || _)
      insert(CSR_ILLEGAL) := !known || (writes && readOnly)
      // Decoded here, so that the wait in execute is one gate on a register.
      insert(CSR_HOLD_SLOT) := slots.filter(_.hold.isDefined).map(sl => address === sl.address).foldLeft(False)(_ || _)
    }

    // ------------------------------------------------- execute: CSR, mret
    execute plug new Area {
      import execute._
      val instr = input(INSTRUCTION)
      // Older instructions only delay a CSR access or mret while one of them
      // may still trap (an exception pending in memory; writeBack never
      // traps), or while they would be missing from a minstret read.
      val readsInstret = Seq(0xB02, 0xB82, 0xC02, 0xC82).map(a => instr(31 downto 20).asUInt === a).reduce(_ || _)
      // The CLIC's outputs are stale for two cycles after a claim (soc/clic.py:
      // irq_valid held low): an mnxti access waits them out (older CSR
      // accesses no longer space back-to-back claims by draining).
      val claimedAgo1 = RegNext(clicClaim) init (False)
      val claimedAgo2 = RegNext(claimedAgo1) init (False)
      val readsNxti = instr(31 downto 20).asUInt === 0x345
      // With a data cache a load or store in memory may still trap or re-run
      // itself (a jump from writeBack, DBusCachedPlugin) after this
      // instruction acted: CSR accesses and mret wait for it to move on.
      val olderAccess = if (cachedData) memory.arbitration.isValid && memoryAccess(pipeline, memory) else False
      val isEmret = if (fast.isDefined) input(IS_EMRET) else False
      // A load the fastirq entry left behind writes the interrupted bank
      // when it answers: no return before that (fastirq: FastIrqPlugin).
      val loadLeft = fast.map(_.loadLeft).getOrElse(False) && (input(IS_MRET) || isEmret)
      // An mret into another task context waits for the older instructions
      // too: they write the register file of the context they ran in.
      val switching = fast.map(_.switchPending).getOrElse(False)
      val switchWait = switching && input(IS_MRET) && !olderEmpty(execute)
      val slotHold = input(CSR_HOLD_SLOT) && slots.flatMap(_.hold).foldLeft(False)(_ || _)
      val waitOlder = memoryTrap || olderAccess || (input(IS_CSR) && readsInstret && !olderEmpty(execute)) ||
                      (input(IS_CSR) && slotHold) ||
                      (input(IS_CSR) && readsNxti && (claimedAgo1 || claimedAgo2)) || loadLeft || switchWait
      // The pc a return jumps to: mepc, or into another task context that
      // context's own (FastIrqPlugin), which becomes mepc.
      val returnTarget = fast.map(f => switching ? f.switchTarget | mepc).getOrElse(mepc)
      // emret waits for the older instructions: VexRiscv's bypasses do not
      // see banks, and the code it returns to reads the other bank.
      val emretWait = isEmret && !olderEmpty(execute)
      val isSystem = input(IS_CSR) || input(IS_MRET) || isEmret
      when(arbitration.isValid && isEmret && emretWait) { arbitration.haltItself := True }
      when(arbitration.isValid && isSystem && waitOlder) { arbitration.haltItself := True }
      val go = arbitration.isValid && !waitOlder && !arbitration.isStuckByOthers && !arbitration.isFlushed

      // emret (FastIrqPlugin's header): chain to a pending interrupt that
      // may be taken at the level returned to, else return switching the
      // bank back, else (the bank is not live) fall through.
      if (fast.isDefined) {
        val live = fast.get.bankLive
        // Not into another context: the kernel has chosen the next task, so
        // the switch comes first and the interrupt is taken in that task.
        // Nor into a bound interrupt: the return comes first, and the
        // interrupt is then taken from the task as a switch (the take above).
        val notBound = if (hasContexts) !fast.get.boundReady && !fast.get.boundHold else True
        val chain = live && clic.valid && mpie && clic.level > mpil && clic.level > mintthresh &&
                    !claimedAgo1 && !claimedAgo2 && !vectorFetch && !switching && notBound
        val emretGo = go && isEmret && !emretWait
        insert(EMRET_RETURNS) := isEmret && live
        when(emretGo && chain) {
          takeWinner()
          mie := False
          trapChain := True
          jumpExecute.valid := True
          jumpExecute.payload := irqTarget
          arbitration.flushNext := True
        } elsewhen (emretGo && live) {
          mie := mpie
          mpie := True
          mil := mpil
          emretSwitch := True
          mepc := returnTarget
          jumpExecute.valid := True
          jumpExecute.payload := returnTarget
          arbitration.flushNext := True
        }
      }

      // tyield (FastIrqPlugin's "Task contexts"): a task hands the core to
      // the task in the next context, with no trap. It waits for the older
      // instructions that write a register (they write the context they
      // ran in) and for the drain; it sets MIE (the next task runs with
      // interrupts on).
      // tswitch: the same into the core's choice (FastIrqPlugin's "The
      // scheduler's view"); with no choice it does nothing and the code
      // after it (the port's pend) runs.
      if (fast.exists(_.contextCount > 1)) {
        val isTswitch = input(IS_TSWITCH)
        val isTyield = input(IS_TYIELD) || isTswitch
        // Only older instructions that write a register hold it (a store or
        // a CSR write ahead of it, as the port's own, does not).
        val olderWrite = stagesOlderThan(execute).map(st => st.arbitration.isValid && st.input(REGFILE_WRITE_VALID))
                                                .foldLeft(False)(_ || _)
        val tyieldWait = isTyield && (olderWrite || fast.get.switchBusy || (isTswitch && fast.get.selectionStale))
        when(arbitration.isValid && tyieldWait) { arbitration.haltItself := True }
        val tyieldGo = go && isTyield && !tyieldWait
        when(tyieldGo && (!isTswitch || fast.get.selectionValid)) {
          tyieldSwitch := True
          tswitchSwitch := isTswitch
          mie := True
          jumpExecute.valid := True
          jumpExecute.payload := isTswitch ? fast.get.selectionTarget | fast.get.switchTarget
          arbitration.flushNext := True
        }
      }

      // ecall / ebreak
      executePort.valid := arbitration.isValid && (input(IS_ECALL) || input(IS_EBREAK))
      executePort.code := input(IS_ECALL) ? U(11, 4 bits) | U(3, 4 bits)
      executePort.badAddr := input(IS_EBREAK) ? input(PC) | U(0, 32 bits)

      // mret
      when(go && input(IS_MRET)) {
        mie := mpie
        mpie := True
        mil := mpil
        jumpExecute.valid := True
        jumpExecute.payload := mepc
        when(minhv && !switching) {              // interrupted table fetch: read the entry again
          jumpExecute.payload := mepc(31 downto 2) @@ U"00"
          vectorFetch := True
        }
        when(switching) {
          mretSwitch := True
          mepc := returnTarget
          jumpExecute.payload := returnTarget
        }
        arbitration.flushNext := True
      }

      // CSR instructions
      val address = instr(31 downto 20).asUInt
      val funct3 = instr(14 downto 12)
      val rs1Field = instr(19 downto 15)
      val rdField = instr(11 downto 7)
      val source = funct3(2) ? rs1Field.resize(32) | input(RS1)
      val isWriteOp = funct3(1 downto 0) === 1                  // csrrw(i)
      val writes = isWriteOp || rs1Field =/= 0
      val reads = !(isWriteOp && rdField === 0)
      def update(old: Bits): Bits = funct3(1 downto 0).mux(
        1 -> source, 2 -> (old | source), 3 -> (old & ~source), default -> old)

      // mnxti: the CLIC winner, if it may be served here (a horizontal,
      // non-vectored interrupt above mcause.mpil and the threshold).
      val nxtiPass = clic.valid && !clic.shv && clic.level > mpil && clic.level > mintthresh
      val nxtiValue = nxtiPass ? (mtvtValue + (clic.id.resize(30) @@ U"00")).asBits | B(0, 32 bits)
      // mscratchcswl: swap with mscratch only when the level crosses zero.
      val cswlSwap = (mpil === 0) =/= (mil === 0)

      val readData = Bits(32 bits)
      readData := 0
      switch(address) {
        is(0x300) { readData := mstatusValue }
        is(0x301) { readData := B(0x40001100L, 32 bits) }        // misa: RV32IM (writes ignored)
        is(0x304) {}                                            // mie: inactive in CLIC mode
        is(0x344) {}                                            // mip: inactive in CLIC mode
        is(0x305) { readData := mtvecValue }
        is(0x307) { readData := mtvtValue.asBits }
        is(0x340) { readData := mscratch }
        is(0x341) { readData := mepc.asBits }
        is(0x342) { readData := mcauseValue }
        is(0x343) { readData := mtval }
        is(0x345) { readData := nxtiValue }
        is(0x346) { readData := mil.asBits ## B(0, 24 bits) }   // mintstatus (read-only)
        is(0x347) { readData := mintthresh.asBits.resized }
        is(0x348) { readData := input(RS1) }                     // mscratchcsw: mpp is always M, no swap
        is(0x349) { readData := cswlSwap ? mscratch | input(RS1) }
        is(0x320) { readData := B(0, 29 bits) ## inhibitInstret ## False ## inhibitCycle }
        is(0xB00) { readData := mcycle(31 downto 0).asBits }
        is(0xB80) { readData := mcycle(63 downto 32).asBits }
        is(0xB02) { readData := minstret(31 downto 0).asBits }
        is(0xB82) { readData := minstret(63 downto 32).asBits }
        is(0xC00) { readData := mcycle(31 downto 0).asBits }
        is(0xC80) { readData := mcycle(63 downto 32).asBits }
        is(0xC02) { readData := minstret(31 downto 0).asBits }
        is(0xC82) { readData := minstret(63 downto 32).asBits }
        // 0xF11..0xF14 mvendorid, marchid, mimpid, mhartid: 0
        for (slot <- slots) is(slot.address) { readData := slot.read }
      }
      val illegal = input(IS_CSR) && input(CSR_ILLEGAL)
      when(arbitration.isValid && input(IS_CSR) && illegal) {
        executePort.valid := True
        executePort.code := 2
        executePort.badAddr := instr.asUInt
      }
      when(arbitration.isValid && input(IS_CSR)) { output(REGFILE_WRITE_DATA) := readData }

      val doWrite = go && input(IS_CSR) && !illegal && writes
      val newValue = update(readData)
      mtvtChange := doWrite && address === 0x307 && newValue(31 downto 6).asUInt =/= mtvtBase

      // The CLIC's thresholds for next cycle (see "The take"). `alt` comes
      // from the instruction alone (mintthresh's new value without the
      // readData mux), so `go` only reaches a register (thrActed).
      def max8(a: UInt, b: UInt): UInt = (a > b) ? a | b
      val writesThresh = input(IS_CSR) && !illegal && writes && address === 0x347
      val threshWritten = update(B(0, 24 bits) ## mintthresh)(7 downto 0).asUInt
      clicThreshold.now := max8(mil, mintthresh)
      // An emret that returns or chains (FastIrqPlugin) sets mil as mret does
      // (a chain then has mie = 0, so its verdict cannot matter).
      val returns = input(IS_MRET) || (if (fast.isDefined) isEmret && fast.get.bankLive else False)
      clicThreshold.alt := returns ? max8(mpil, mintthresh) | max8(mil, threshWritten)
      // Not while an emret waits for older instructions (emretWait): `go`
      // holds then but the emret has not acted, and mil must stay; with
      // mpil's verdict a request at mil's own level would be taken with the
      // waiting emret as mepc (found by the FreeRTOS port: a yield pended
      // at the kernel's level entered the tick handler at its emret).
      thrAct := go && !emretWait && (returns || writesThresh)
      for (slot <- slots) {
        slot.write.valid := doWrite && address === slot.address
        slot.write.payload := newValue
      }
      thresholdWrite := (doWrite && address === 0x347) || boundSwitch
      when(doWrite) {
        switch(address) {
          is(0x300) { mie := newValue(3); mpie := newValue(7) }
          is(0x305) { mtvecBase := newValue(31 downto 6).asUInt }
          is(0x307) { mtvtBase := newValue(31 downto 6).asUInt }
          is(0x340) { mscratch := newValue }
          is(0x341) { mepc := newValue(31 downto 2).asUInt @@ U"00" }
          is(0x342) {
            mcauseInterrupt := newValue(31)
            minhv := newValue(30)
            mpie := newValue(27)
            mpil := newValue(23 downto 16).asUInt
            mcauseCode := newValue(11 downto 0).asUInt
          }
          is(0x343) { mtval := newValue }
          is(0x345) {
            // The read-modify-write goes to mstatus; the claim is a side effect.
            val status = funct3(1 downto 0).mux(2 -> (mstatusValue | source), 3 -> (mstatusValue & ~source), default -> mstatusValue)
            mie := status(3)
            mpie := status(7)
            when(nxtiPass) {
              mil := clic.level
              mcauseCode := clic.id.resized
              mcauseInterrupt := True
              clicClaim := True
            }
          }
          is(0x347) { mintthresh := newValue(7 downto 0).asUInt }
          is(0x349) { when(cswlSwap) { mscratch := source } }
          is(0x320) { inhibitCycle := newValue(0); inhibitInstret := newValue(2) }
          is(0xB00) { mcycle(31 downto 0) := newValue.asUInt }
          is(0xB80) { mcycle(63 downto 32) := newValue.asUInt }
          is(0xB02) { minstret(31 downto 0) := newValue.asUInt }
          is(0xB82) { minstret(63 downto 32) := newValue.asUInt }
        }
      }
    }
  }
}
