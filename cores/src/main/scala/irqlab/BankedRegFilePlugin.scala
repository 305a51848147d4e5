package irqlab

import spinal.core._
import spinal.lib._
import vexriscv._
import vexriscv.plugin._

/** The register banks, for a plugin that switches them (FastIrqPlugin: a
  * second bank of the caller-saved registers on interrupt entry).
  *
  *  - `bank` (driven by the switching plugin; 0 without one) is the bank the
  *    instructions fetched from now on read and write. Every instruction
  *    carries the bank it was decoded with (`REG_BANK`) to writeBack, so an
  *    older instruction still in flight when the bank changes writes its own.
  *  - `inject` (valid in cycle t) makes decode's register read of cycle t
  *    for the instruction decode holds in t+1 read the fields of `payload`
  *    instead of the fetched instruction's: the switching plugin then puts
  *    that instruction into decode in t+1 (FastIrqPlugin's stack-pointer
  *    adjustment).
  *  - `drainRead(bank, reg)` is a read port of its own (synchronous: the word
  *    in the cycle after the address) for a plugin that copies a bank out.
  *  - `sideWrite` (valid in cycle t) writes a register of a bank in t, for a
  *    plugin that completes an instruction outside the pipeline
  *    (FastIrqPlugin: a load the entry left behind). It has the write port
  *    first: writeBack waits that cycle if it writes too.
  *  - With `contextCount` > 1 the whole file (every bank) exists once per
  *    task context: `context` is the context decode reads (driven by the
  *    switching plugin), `writeContext` the one writeBack writes. The plugin
  *    changes them only while no instruction is in flight (FastIrqPlugin's
  *    context switch waits for the older instructions and flushes the
  *    younger), so no instruction needs to carry its context.
  */
trait RegFileBanks {
  def bankCount: Int
  def bank: UInt
  def contextCount: Int
  def context: UInt
  def writeContext: UInt
  def inject: Flow[Bits]
  def isBanked(reg: Int): Boolean
  def isBanked(reg: UInt): Bool                  // the same, in hardware
  def drainRead(context: UInt, bank: UInt, reg: UInt): Bits
  def sideWrite: Flow[RegWrite]
}

case class RegWrite(contextBits: Int) extends Bundle {
  val context = UInt(contextBits bits)
  val bank = UInt(1 bits)
  val reg = UInt(5 bits)
  val data = Bits(32 bits)
}

object RegBank {
  /** The bank an instruction reads and writes (set in decode). */
  object REG_BANK extends Stageable(UInt(1 bits))
}

/** irqlab's integer register file: x0..x31 (or x0..x15 with rv32e) in one
  * RAM, read synchronously in decode (the address comes from the fetch stage,
  * one cycle ahead; decode's stall picks the word after the RAM, see below),
  * written from writeBack.
  *
  * With `banks` = 2, the registers `banked` names have a second copy: the
  * bank is the top of the RAM address for them, and every other register
  * (for FastIrqPlugin: the callee-saved ones, sp, gp, tp) is shared, always
  * in bank 0. An instruction reads and writes the bank it was decoded with
  * (`RegBank.REG_BANK`). x0 reads as 0 in every bank (a read of register 0
  * is forced to 0, and writes to it are dropped in decode), so banks need no
  * initialisation.
  *
  * VexRiscv's bypasses (HazardSimplePlugin) compare register numbers, not
  * banks: a plugin that switches banks keeps instructions of the other bank
  * out of memory and writeBack where a register the new code needs could be
  * bypassed from them (FastIrqPlugin: the interrupted code needs nothing
  * from the handler's fresh bank; `emret` waits for older instructions).
  */
class BankedRegFilePlugin(banks: Int = 1, rv32e: Boolean = false, banked: Int => Boolean = _ => true,
                          contexts: Int = 1)
    extends Plugin[VexRiscv] with RegFileService with RegFileBanks {
  require(banks == 1 || banks == 2, "banks: 1 or 2")
  require(contexts >= 1 && isPow2(contexts), "contexts: a power of two")
  val contextBits: Int = log2Up(contexts) max 1          // the signals have a bit even with one context

  override def readStage(): Stage = pipeline.decode
  override def bankCount: Int = banks
  override def contextCount: Int = contexts
  override def isBanked(reg: Int): Boolean = banks > 1 && reg != 0 && banked(reg)
  override def isBanked(reg: UInt): Bool =
    B((0 until (1 << reg.getWidth)).filter(isBanked).map(k => BigInt(1) << k).sum, (1 << reg.getWidth) bits)(reg)
  var bank: UInt = null
  var context: UInt = null
  var writeContext: UInt = null
  var inject: Flow[Bits] = null
  var sideWrite: Flow[RegWrite] = null
  private var ram: Mem[Bits] = null
  private val regBits = if (rv32e) 4 else 5

  override def setup(pipeline: VexRiscv): Unit = {
    import pipeline.config._
    val decoder = pipeline.service(classOf[DecoderService])
    decoder.addDefault(RS1_USE, False)
    decoder.addDefault(RS2_USE, False)
    decoder.addDefault(REGFILE_WRITE_VALID, False)
    bank = UInt(1 bits)
    context = UInt(contextBits bits)
    writeContext = UInt(contextBits bits)
    inject = Flow(Bits(32 bits))
    sideWrite = Flow(RegWrite(contextBits))
  }

  /** The RAM address of register `reg` in `bank` of `context`: banked
    * registers have the bank as the address's bit above the register
    * number, shared ones are in bank 0; the context is the top. */
  private def address(context: UInt, bank: UInt, reg: Bits): UInt = {
    val r = reg(regBits - 1 downto 0).asUInt
    val inContext = if (banks == 1) r else (bank & isBanked(r).asUInt) @@ r
    if (contexts == 1) inContext else context @@ inContext
  }

  override def drainRead(context: UInt, bank: UInt, reg: UInt): Bits =
    ram.readSync(address(context, bank, reg.asBits.resize(regBits)))

  /** The instruction the fetcher delivers to decode this cycle (the
    * fetcher's own signal, found by its name: it is local to the fetch
    * plugin's build, as the `stuck ? held : fetched` of INSTRUCTION_ANTICIPATED
    * shows). IBusSimplePlugin, or IBusCachedPlugin with a one-cycle cache
    * (its injector stage then sits before decode, as IBusSimplePlugin's does). */
  private def fetchedInstruction(pipeline: VexRiscv): Bits = {
    val fetcher = pipeline.plugins.collectFirst {
      case f: IBusSimplePlugin => "IBusSimplePlugin"
      case f: IBusCachedPlugin =>
        assert(!f.config.twoCycleCache, "BankedRegFilePlugin: IBusCachedPlugin with twoCycleCache has no injector stage")
        "IBusCachedPlugin"
    }.getOrElse(SpinalError("BankedRegFilePlugin: IBusSimplePlugin or IBusCachedPlugin needed"))
    val name = s"${fetcher}_iBusRsp_output_payload_rsp_inst"
    var found: Bits = null
    pipeline.dslBody.walkDeclarations {
      case b: Bits if b.getName() == name => found = b
      case _ =>
    }
    if (found == null) SpinalError(s"BankedRegFilePlugin: fetcher signal '$name' not found")
    found
  }

  override def build(pipeline: VexRiscv): Unit = {
    import pipeline._
    import pipeline.config._
    import RegBank._

    ram = Mem(Bits(32 bits), contexts * (banks << regBits)).addAttribute(Verilator.public)
    if (banks == 1) bank := 0
    if (contexts == 1) { context := 0; writeContext := 0 }
    inject.setIdle()                                       // a switching plugin overrides
    sideWrite.setIdle()                                    // a completing plugin overrides

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
      // An injected instruction takes the fetched one's port.
      val held = input(INSTRUCTION)
      val fetched = inject.valid ? inject.payload | fetchedInstruction(pipeline)
      val pickHeld = RegNext(arbitration.isStuck && !inject.valid)
      def read(field: Range): Bits = {
        def one(instr: Bits): (Bits, Bool) = {
          val reg = instr(field)
          (ram.readSync(address(context, bank, reg)), RegNext(reg(regBits - 1 downto 0) === 0))
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
      // The bank the read used (a bank switch flushes decode, so the bank
      // does not change under an instruction decode holds).
      if (banks > 1) insert(REG_BANK) := RegNext(bank)
    }

    writeBack plug new Area {
      import writeBack._
      val port = ram.writePort
      // The side write is a register's (its plugin's), so writeBack's wait
      // starts at registers and stays off the data bus's answer.
      val writes = arbitration.isValid && output(REGFILE_WRITE_VALID)
      when(sideWrite.valid && writes) { arbitration.haltItself := True }
      port.valid := sideWrite.valid || (writes && arbitration.isFiring)
      port.address := sideWrite.valid ? address(sideWrite.context, sideWrite.bank, sideWrite.reg.asBits) |
                      address(writeContext, if (banks > 1) output(REG_BANK) else U(0, 1 bits),
                              output(INSTRUCTION)(Riscv.rdRange))
      port.data := sideWrite.valid ? sideWrite.data | output(REGFILE_WRITE_DATA)
    }
  }
}
