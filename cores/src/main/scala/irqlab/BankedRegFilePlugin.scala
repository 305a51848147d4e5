package irqlab

import spinal.core._
import spinal.lib._
import vexriscv._
import vexriscv.plugin._

/** Which register bank the pipeline reads and writes. A plugin that switches
  * banks (fastirq: a second bank on interrupt entry) drives these; by default
  * both are bank 0. */
trait RegFileBanks {
  def bankCount: Int
  def readBank: UInt
  def writeBank: UInt
}

/** irqlab's integer register file: `banks` copies of x0..x31 (or x0..x15 with
  * rv32e) in one RAM, read synchronously in decode (the address comes from
  * the fetch stage, one cycle ahead; decode's stall picks the word after the
  * RAM, see below), written from writeBack.
  *
  * The bank index is the top of the RAM address. Switching it is free of
  * pipeline hazards only while no instruction is in flight between decode
  * and writeBack: that is the case in the cycle an interrupt is taken
  * (TrapCsrPlugin drains the pipeline first), which is where fastirq switches.
  * x0 reads as 0 in every bank (a read of register 0 is forced to 0, and
  * writes to it are dropped in decode), so banks need no initialisation.
  */
class BankedRegFilePlugin(banks: Int = 1, rv32e: Boolean = false)
    extends Plugin[VexRiscv] with RegFileService with RegFileBanks {
  require(banks >= 1 && isPow2(banks), "banks: a power of two")

  override def readStage(): Stage = pipeline.decode
  override def bankCount: Int = banks
  var readBank: UInt = null
  var writeBank: UInt = null

  override def setup(pipeline: VexRiscv): Unit = {
    import pipeline.config._
    val decoder = pipeline.service(classOf[DecoderService])
    decoder.addDefault(RS1_USE, False)
    decoder.addDefault(RS2_USE, False)
    decoder.addDefault(REGFILE_WRITE_VALID, False)
    readBank = UInt(log2Up(banks) bits)
    writeBank = UInt(log2Up(banks) bits)
  }

  /** The instruction the fetcher delivers to decode this cycle (the
    * fetcher's own signal, found by its name: it is local to IBusSimplePlugin's
    * build, as the `stuck ? held : fetched` of INSTRUCTION_ANTICIPATED shows). */
  private def fetchedInstruction(pipeline: VexRiscv): Bits = {
    val name = "IBusSimplePlugin_iBusRsp_output_payload_rsp_inst"
    var found: Bits = null
    pipeline.dslBody.walkDeclarations {
      case b: Bits if b.getName() == name => found = b
      case _ =>
    }
    if (found == null) SpinalError(s"BankedRegFilePlugin: fetcher signal '$name' not found (IBusSimplePlugin needed)")
    found
  }

  override def build(pipeline: VexRiscv): Unit = {
    import pipeline._
    import pipeline.config._

    val regBits = if (rv32e) 4 else 5
    val bankBits = log2Up(banks)
    if (banks > 1) { readBank := 0; writeBank := 0 }    // a bank-switching plugin overrides

    val ram = Mem(Bits(32 bits), banks << regBits).addAttribute(Verilator.public)
    def address(bank: UInt, reg: Bits): UInt =
      if (banks == 1) reg(regBits - 1 downto 0).asUInt
      else bank @@ reg(regBits - 1 downto 0).asUInt

    // Writes to x0 never happen (and in RV32E neither to x16..x31).
    when(decode.input(INSTRUCTION)(Riscv.rdRange) === 0) { decode.input(REGFILE_WRITE_VALID) := False }
    if (rv32e) when(decode.input(INSTRUCTION)(Riscv.rdRange.head)) { decode.input(REGFILE_WRITE_VALID) := False }

    decode plug new Area {
      import decode._
      // The registers are read for the instruction decode has next:
      // VexRiscv's INSTRUCTION_ANTICIPATED = stuck ? the instruction decode
      // holds : the one the fetcher delivers. Its select, decode's stall,
      // comes late in the cycle (from every halt in the pipeline, the data
      // bus's ready among them), so it is not put in front of the RAM's
      // address: both instructions are read, each on its own read port, and
      // the stall is registered to pick the word after the RAM. The same
      // words in the same cycle as one read of INSTRUCTION_ANTICIPATED.
      val held = input(INSTRUCTION)
      val fetched = fetchedInstruction(pipeline)
      val pickHeld = RegNext(arbitration.isStuck)
      def read(field: Range): Bits = {
        def one(instr: Bits): (Bits, Bool) = {
          val reg = instr(field)
          (ram.readSync(address(readBank, reg)), RegNext(reg(regBits - 1 downto 0) === 0))
        }
        val (heldData, heldZero) = one(held)
        val (fetchedData, fetchedZero) = one(fetched)
        val zero = pickHeld ? heldZero | fetchedZero
        zero ? B(0, 32 bits) | (pickHeld ? heldData | fetchedData)
      }
      // Each read is registered (readSync, RegNext) every cycle, so the word
      // is always the one for the instruction decode has in the next cycle.
      insert(RS1) := read(Riscv.rs1Range)
      insert(RS2) := read(Riscv.rs2Range)
    }

    writeBack plug new Area {
      import writeBack._
      val port = ram.writePort
      port.valid := output(REGFILE_WRITE_VALID) && arbitration.isFiring
      port.address := address(writeBank, output(INSTRUCTION)(Riscv.rdRange))
      port.data := output(REGFILE_WRITE_DATA)
    }
  }
}
