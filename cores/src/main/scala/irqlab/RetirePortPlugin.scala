package irqlab

import spinal.core._
import spinal.lib._
import spinal.core.internals.DeclarationStatement
import vexriscv._
import vexriscv.plugin._

/** The retire (trace) port, as top-level outputs of the VexRiscv component.
  *
  * One event per cycle at most, qualified by `retire_valid`:
  *
  *  - instruction retirement: `retire_valid=1, retire_trap=0`. An instruction
  *    leaves the last (writeBack) stage validly this cycle
  *    (`writeBack.arbitration.isFiring`); `retire_pc` is its pc. If it is an
  *    `mret`, `retire_mret=1` (the mret itself retires; its target, mepc, is the
  *    pc of the next retirement).
  *  - trap entry: `retire_valid=1, retire_trap=1`. CsrPlugin takes an interrupt
  *    or an exception this cycle (it loads the pc with the handler address and
  *    updates mepc/mcause/mstatus). `retire_pc` is the HANDLER'S FIRST FETCH
  *    TARGET (mtvec base, or base + 4*cause for interrupts in vectored mode),
  *    `retire_cause` = {interrupt, mcause.exceptionCode[6:0]} (the value mcause
  *    takes, interrupt flag in bit 7). The trapping instruction does not retire
  *    (exceptions, ecall, ebreak). An interrupt taken while older instructions
  *    still retire (TrapCsrPlugin takes it between memory and execute) is shown
  *    in the first cycle after them without a retirement, so the two kinds
  *    never coincide (checked by a simulation-only assertion);
  *    `retire_trapDelay` says how many cycles after the take that is (0..2).
  *
  * `retire_valid` therefore also marks trap entries: this is the convention of
  * the trace unit's RetirePort (soc/tracer.py), which gates `trap` and `mret`
  * with `valid`. An instruction retired iff `retire_valid && !retire_trap`.
  *
  * Execute entry, beside it (the seeds count interrupt latency to the
  * EXECUTION of the first handler instruction at which the context is saved,
  * the trace unit's B):
  *
  *  - `exec_valid=1` in the first cycle an instruction is in the execute
  *    stage: `execute.arbitration.isValid` now, and execute did not hold this
  *    same instruction the cycle before (it was not valid, stuck and kept
  *    there: `isValid && isStuck && !removeIt`). An instruction that stalls
  *    in execute pulses once, in its first cycle there; one dropped from
  *    execute (a flush, an interrupt taken between memory and execute) has
  *    pulsed all the same, and pulses again when it is fetched again.
  *    `exec_pc` is the execute stage's pc (valid with `exec_valid`).
  *    Independent of the retire outputs: both may be valid in one cycle.
  *
  * All outputs are combinational from the core's registers (no added latency).
  *
  * CsrPlugin keeps its trap-entry signals local to its build(), so they are
  * found by name in the VexRiscv component after CsrPlugin has been built; this
  * plugin must come after CsrPlugin in the plugin list (checked in setup).
  */
class RetirePortPlugin extends Plugin[VexRiscv] {
  var retire_valid: Bool = null
  var retire_pc: UInt = null
  var retire_trap: Bool = null
  var retire_cause: Bits = null
  var retire_mret: Bool = null
  var retire_trapDelay: UInt = null
  var exec_valid: Bool = null
  var exec_pc: UInt = null

  override def setup(pipeline: VexRiscv): Unit = {
    val csrIndex = pipeline.plugins.indexWhere(p => p.isInstanceOf[CsrPlugin] || p.isInstanceOf[TrapEvents])
    val myIndex = pipeline.plugins.indexWhere(_ eq this)
    if (csrIndex < 0) SpinalError("RetirePortPlugin needs CsrPlugin or TrapCsrPlugin")
    if (csrIndex > myIndex) SpinalError("RetirePortPlugin must come after the CSR plugin in the plugin list")

    retire_valid = out(Bool()).setName("retire_valid")
    retire_pc = out(UInt(32 bits)).setName("retire_pc")
    retire_trap = out(Bool()).setName("retire_trap")
    retire_cause = out(Bits(8 bits)).setName("retire_cause")
    retire_mret = out(Bool()).setName("retire_mret")
    retire_trapDelay = out(UInt(2 bits)).setName("retire_trapDelay")
    exec_valid = out(Bool()).setName("exec_valid")
    exec_pc = out(UInt(32 bits)).setName("exec_pc")
  }

  /** A signal of the current component by its (final) name. */
  private def signal(pipeline: VexRiscv, name: String): BaseType = {
    var found: BaseType = null
    pipeline.dslBody.walkDeclarations {
      case bt: BaseType if bt.getName() == name => found = bt
      case _ =>
    }
    if (found == null)
      SpinalError(s"RetirePortPlugin: CsrPlugin signal '$name' not found (VexRiscv version mismatch?)")
    found
  }

  override def build(pipeline: VexRiscv): Unit = {
    import pipeline._
    import pipeline.config._

    val events = pipeline.plugins.collectFirst { case t: TrapEvents => t }
    val fast = pipeline.plugins.collectFirst { case f: FastIrqControl => f }

    execute plug new Area {
      import execute._
      // Execute held this instruction last cycle and kept it (stuck, not removed).
      val stayed = RegNext(arbitration.isValid && arbitration.isStuck && !arbitration.removeIt) init(False)
      // (FastIrqPlugin's injected sp adjustments are not the program's.)
      exec_valid := arbitration.isValid && !stayed && !fast.map(_.injected(execute)).getOrElse(False)
      exec_pc := input(PC)
    }

    writeBack plug new Area {
      import writeBack._

      // FastIrqPlugin's injected sp adjustments are not instructions of the program.
      val retired = arbitration.isFiring && !fast.map(_.injected(writeBack)).getOrElse(False)
      val isMret = Bool()
      // The cycle the trap is taken (the fetcher loaded with the handler
      // address, mcause/mepc/mstatus updated).
      val trap = Bool()
      val cause = Bits(8 bits)
      val target = UInt(32 bits)
      events match {
        case Some(t) =>
          isMret := t.isMret(writeBack)
          trap := t.trapTaken
          cause := t.trapIsInterrupt ## t.trapCode(6 downto 0).asBits
          target := t.trapTarget
        case None =>
          val csr = service(classOf[CsrPlugin])
          val hadException = signal(pipeline, "CsrPlugin_hadException").asInstanceOf[Bool]
          val interruptJump = signal(pipeline, "CsrPlugin_interruptJump").asInstanceOf[Bool]
          val trapCause = signal(pipeline, "CsrPlugin_trapCause").asInstanceOf[UInt]
          isMret := input(csr.ENV_CTRL) === csr.EnvCtrlEnum.XRET && input(INSTRUCTION)(29 downto 28) === B"11"
          trap := hadException || interruptJump
          cause(7) := !hadException
          cause(6 downto 0) := trapCause.resize(7).asBits
          target := csr.jumpInterface.payload
      }

      // TrapCsrPlugin takes an interrupt between memory and execute: the
      // instructions in memory and writeBack are older and still retire. An
      // entry in a cycle with a retirement is shown in the next cycle without
      // one (there is always one before the handler's first retirement).
      // The delay is shown with it: the trace then knows the entry cycle.
      val deferred = RegInit(False)
      val deferredAge = Reg(UInt(2 bits))        // cycles since the deferred trap was taken
      val deferredCause = Reg(Bits(8 bits))
      val deferredTarget = Reg(UInt(32 bits))
      val trapShown = Bool()
      val causeShown = Bits(8 bits)
      val targetShown = UInt(32 bits)
      // A tail chain (emret taking a pending interrupt in execute, cycle t)
      // is shown after the emret's own retirement (t+2), in t+3: no
      // instruction of the handler can retire before t+5.
      val chain = events.map(_.trapChain).getOrElse(False)
      val chainShown = Delay(chain, 3, init = False)
      val chainCause = Delay(cause, 3)
      val chainTarget = Delay(target, 3)
      trapShown := trap || deferred || chainShown
      causeShown := chainShown ? chainCause | (deferred ? deferredCause | cause)
      targetShown := chainShown ? chainTarget | (deferred ? deferredTarget | target)
      when(retired) {
        when(trap) {
          deferred := True
          deferredAge := 1
          deferredCause := cause
          deferredTarget := target
        } elsewhen (deferred) {
          deferredAge := deferredAge + 1
        }
      } otherwise { deferred := False }

      retire_valid := retired || trapShown
      retire_trap := trapShown && !retired
      retire_pc := (trapShown && !retired) ? targetShown | input(PC)
      retire_cause := (trapShown && !retired) ? causeShown | B(0, 8 bits)
      retire_mret := retired && isMret
      retire_trapDelay := chainShown ? U(3, 2 bits) | ((deferred && !retired) ? deferredAge | U(0, 2 bits))

      assert(!(retired && trap && deferred), "RetirePortPlugin: a second trap entry before the first was shown", ERROR)
      assert(!(deferred && deferredAge === 3), "RetirePortPlugin: a trap entry deferred by 3 cycles or more", ERROR)
      assert(!(chainShown && (retired || trap || deferred)), "RetirePortPlugin: a tail chain shown with another event", ERROR)
    }
  }
}
