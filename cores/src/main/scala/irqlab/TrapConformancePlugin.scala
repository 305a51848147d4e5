package irqlab

import spinal.core._
import vexriscv._
import vexriscv.plugin._

/** Spec conformance of the traps VexRiscv's CsrPlugin raises itself (the
  * `clint` variant; `clic`'s TrapCsrPlugin already behaves like this).
  *
  * CsrPlugin raises its own exceptions (illegal CSR access, ecall, ebreak)
  * through one exception port in execute, whose `badAddr` (-> mtval) is always
  * the instruction's encoding. This plugin adjusts that port:
  *  - `ecall`: mtval = 0 (CsrPlugin: 0x00000073). The privileged spec wants 0.
  *  - `ebreak`: mtval = the pc (CsrPlugin: 0x00100073). The spec allows 0 or
  *    the pc; TrapCsrPlugin writes the pc too.
  *  - `sret` without S mode: illegal instruction, mtval = its bits. CsrPlugin
  *    decodes `sret` even without S mode and runs it as a jump.
  *  - a CSR instruction that writes a read-only CSR (address bits 11:10 = 11):
  *    illegal instruction, mtval = its bits. CsrPlugin traps only `csrrw` /
  *    `csrrwi` with rd = x0 there, and lets e.g. `csrrsi x0, mhartid, 1` pass.
  * Illegal CSR accesses keep the instruction bits, as the decoder's
  * illegal-instruction trap does on both variants (the spec allows 0 or them).
  *
  * It overrides what CsrPlugin assigned (in SpinalHDL the last assignment
  * wins), so it must come after CsrPlugin in the plugin list (checked).
  */
class TrapConformancePlugin extends Plugin[VexRiscv] {
  private var csr: CsrPlugin = null

  override def setup(pipeline: VexRiscv): Unit = {
    val csrIndex = pipeline.plugins.indexWhere(_.isInstanceOf[CsrPlugin])
    if (csrIndex < 0) SpinalError("TrapConformancePlugin needs VexRiscv's CsrPlugin")
    if (csrIndex > pipeline.plugins.indexWhere(_ eq this))
      SpinalError("TrapConformancePlugin must come after CsrPlugin in the plugin list")
    csr = pipeline.plugins(csrIndex).asInstanceOf[CsrPlugin]
  }

  override def build(pipeline: VexRiscv): Unit = {
    import pipeline._
    import pipeline.config._
    val c = csr                           // a stable path for CsrPlugin's inner ENV_CTRL / EnvCtrlEnum
    // null when CsrPlugin is configured without ecall, ebreak and illegal-access traps
    val port = c.selfException
    if (port != null) execute plug new Area {
      import execute._
      switch(input(c.ENV_CTRL)) {
        is(c.EnvCtrlEnum.ECALL) { port.badAddr := 0 }
        is(c.EnvCtrlEnum.EBREAK) { port.badAddr := input(PC) }
        is(c.EnvCtrlEnum.XRET) {
          // bits 29:28 = 01: sret. The trap removes it before writeBack, where CsrPlugin would jump.
          if (!c.config.supervisorGen) when(arbitration.isValid && input(INSTRUCTION)(29 downto 28) === B"01") {
            port.valid := True
            port.code := 2
          }
        }
        default {}
      }
      if (c.config.catchIllegalAccess)
        when(arbitration.isValid && input(c.IS_CSR) && input(c.CSR_WRITE_OPCODE) && input(INSTRUCTION)(31 downto 30) === B"11") {
          port.valid := True
          port.code := 2
        }
    }
  }
}
