package irqlab

import spinal.core._
import vexriscv._
import vexriscv.plugin._

/** A multiply whose result can be used earlier than MulPlugin's: the whole
  * 33 x 33-bit signed product in one stage, bypassable from there.
  *  - `inExecute` = true: in execute, so the next instruction uses it with no
  *    wait (a single-cycle multiply, as an ALU operation);
  *  - `inExecute` = false: in memory, one wait for the next instruction.
  * MulPlugin splits the product into four 16-bit partial products (execute
  * and memory) and adds them in writeBack: two waits. A pipeline lever
  * (Variants.levers): what the kernel's multiplies cost, against the clock. */
class MulEarlyPlugin(val inExecute: Boolean) extends Plugin[VexRiscv] {
  object MUL_OPA extends Stageable(SInt(33 bits))
  object MUL_OPB extends Stageable(SInt(33 bits))
  object IS_MUL extends Stageable(Bool)

  override def setup(pipeline: VexRiscv): Unit = {
    import pipeline.config._
    val decoder = pipeline.service(classOf[DecoderService])
    decoder.addDefault(IS_MUL, False)
    decoder.add(Riscv.MULX, List(
      SRC1_CTRL -> Src1CtrlEnum.RS,
      SRC2_CTRL -> Src2CtrlEnum.RS,
      REGFILE_WRITE_VALID -> True,
      BYPASSABLE_EXECUTE_STAGE -> Bool(inExecute),
      BYPASSABLE_MEMORY_STAGE -> True,
      RS1_USE -> True,
      RS2_USE -> True,
      IS_MUL -> True
    ))
  }

  override def build(pipeline: VexRiscv): Unit = {
    import pipeline._
    import pipeline.config._

    execute plug new Area {
      import execute._
      val a = input(SRC1)
      val b = input(SRC2)
      // funct3: 0 mul, 1 mulh (both signed), 2 mulhsu (rs1 signed), 3 mulhu
      val f = input(INSTRUCTION)(13 downto 12)
      val aSigned = f === 1 || f === 2
      val bSigned = f === 1
      insert(MUL_OPA) := ((aSigned && a.msb) ## a).asSInt
      insert(MUL_OPB) := ((bSigned && b.msb) ## b).asSInt
    }

    val stage = if (inExecute) execute else memory
    stage plug new Area {
      import stage._
      val product = (input(MUL_OPA) * input(MUL_OPB))(63 downto 0).asBits
      when(arbitration.isValid && input(IS_MUL)) {
        output(REGFILE_WRITE_DATA) := (input(INSTRUCTION)(13 downto 12) === 0) ? product(31 downto 0) | product(63 downto 32)
      }
    }
  }
}
