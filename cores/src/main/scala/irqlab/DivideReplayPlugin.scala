package irqlab

import spinal.core._
import spinal.lib._
import vexriscv._
import vexriscv.plugin._

/** `clint` only: a divide in the memory stage (MulDivIterativePlugin, up to
  * 34 cycles) no longer holds back an interrupt. VexRiscv's CsrPlugin takes
  * an interrupt only once execute, memory and writeBack are empty
  * (`pipelineLiberator`); while it waits for that, a divide in memory is
  * flushed and the fetcher is sent back to the divide's pc: the divide runs
  * again from the start, after the interrupt (CsrPlugin's mepc is then the
  * divide's pc, as for any instruction in decode). Replaying a divide is
  * always safe: it has no side effect before it writes its register in
  * writeBack. (`clic`'s TrapCsrPlugin aborts the divide itself, at its
  * interrupt entry point.)
  *
  * CsrPlugin keeps `pipelineLiberator.active` (an interrupt is pending and
  * allowed, decode is held) local to its build(), so it is found by name,
  * as RetirePortPlugin finds CsrPlugin's trap signals; this plugin must come
  * after CsrPlugin in the plugin list (checked). */
class DivideReplayPlugin extends Plugin[VexRiscv] {
  var jump: Flow[UInt] = null

  override def setup(pipeline: VexRiscv): Unit = {
    val csrIndex = pipeline.plugins.indexWhere(_.isInstanceOf[CsrPlugin])
    val myIndex = pipeline.plugins.indexWhere(_ eq this)
    if (csrIndex < 0 || csrIndex > myIndex) SpinalError("DivideReplayPlugin must come after CsrPlugin in the plugin list")
    if (!pipeline.plugins.exists(_.isInstanceOf[MulDivIterativePlugin])) SpinalError("DivideReplayPlugin needs a divider (MulDivIterativePlugin)")
    jump = pipeline.service(classOf[JumpService]).createJumpInterface(pipeline.memory, priority = 5)
  }

  override def build(pipeline: VexRiscv): Unit = {
    import pipeline._
    import pipeline.config._

    var active: Bool = null
    pipeline.dslBody.walkDeclarations {
      case b: Bool if b.getName() == "CsrPlugin_pipelineLiberator_active" => active = b
      case _ =>
    }
    if (active == null)
      SpinalError("DivideReplayPlugin: CsrPlugin signal 'CsrPlugin_pipelineLiberator_active' not found (VexRiscv version mismatch?)")

    memory plug new Area {
      import memory._
      val replay = active && arbitration.isValid && input(MulDivIterativePlugin.IS_DIV)
      jump.valid := replay
      jump.payload := input(PC)
      when(replay) {
        arbitration.flushIt := True
        arbitration.flushNext := True
      }
    }
  }
}
