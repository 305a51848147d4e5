package irqlab

import spinal.core._
import vexriscv._
import vexriscv.plugin._

/** Marks a variant whose buses stay VexRiscv's native ones at the top level.
  *
  * With this plugin in the list, GenCore does not bridge IBusSimplePlugin's
  * and DBusSimplePlugin's buses to Wishbone: they leave the core as
  *
  *   iBus_cmd_valid/ready, iBus_cmd_payload_pc, iBus_rsp_valid,
  *   iBus_rsp_payload_inst, iBus_rsp_payload_error
  *   dBus_cmd_valid/ready, dBus_cmd_payload_{wr,address,data,size},
  *   dBus_rsp_ready, dBus_rsp_error, dBus_rsp_data
  *
  * and the SoC puts its memory system beside the core: soc/tcm.py's
  * tightly coupled memories (one cycle from command to response) with a
  * Wishbone bridge for every other address. The plugin builds no hardware;
  * it only checks that both simple-bus plugins are present.
  */
class NativeBusPlugin extends Plugin[VexRiscv] {
  override def setup(pipeline: VexRiscv): Unit = {
    val has = pipeline.plugins
    assert(has.exists(_.isInstanceOf[IBusSimplePlugin]) && has.exists(_.isInstanceOf[DBusSimplePlugin]),
      "NativeBusPlugin needs IBusSimplePlugin and DBusSimplePlugin")
  }

  override def build(pipeline: VexRiscv): Unit = {}
}
