package irqlab

import spinal.core._
import spinal.lib._
import vexriscv._
import vexriscv.ip.{DataCacheConfig, InstructionCacheConfig}
import vexriscv.plugin._

/** The project's core variants: a name -> the VexRiscv plugin list.
  *
  * Every variant is generated as `IrqlabCore_<variant>.v` with top module
  * `IrqlabCore_<variant>` (see GenCore), with its buses as Wishbone
  * (`iBusWishbone_*`, `dBusWishbone_*`) and the port names of LiteX's stock
  * VexRiscv (`externalResetVector`, `timerInterrupt`, `softwareInterrupt`,
  * `externalInterruptArray`) plus the retire port (`retire_*`).
  */
object Variants {

  /** The instruction bus of every variant without caches. */
  def iBus(prediction: BranchPrediction) = new IBusSimplePlugin(
    resetVector = null,               // `externalResetVector` input
    cmdForkOnSecondStage = false,
    cmdForkPersistence = false,       // the Wishbone bridge holds the command
    catchAccessFault = true,
    prediction = prediction
  )

  /** The data bus of every variant without caches; `earlyInjection`: a load's
    * result is bypassable from memory, not only from writeBack. */
  def dBus(earlyInjection: Boolean) = new DBusSimplePlugin(
    catchAddressMisaligned = true,
    catchAccessFault = true,
    earlyInjection = earlyInjection
  )

  /** clint: RV32IM, machine mode only, no MMU, no caches (IBusSimplePlugin /
    * DBusSimplePlugin, like LiteX's "min"/"lite" VexRiscv without the
    * instruction cache) so memory timing is simply the Wishbone timing.
    *  - interrupts through the stock CsrPlugin: timer (mip.MTIP, cause 7),
    *    software (mip.MSIP, cause 3) and external (mip.MEIP, cause 11), the
    *    latter the OR of a 32-line `externalInterruptArray` masked by CSR 0xBC0
    *    (pending lines readable at 0xFC0): LiteX's VexRiscv convention (the firmware's
    *    interrupt model `csr-mask`, fw/common/irq/csr-mask/).
    *  - mtvec read/write with direct and vectored mode (xtvecModeGen).
    *  - wfi waits for an interrupt (wfiGenAsWait), ecall/ebreak trap
    *    (mtval 0 and the pc), sret illegal: TrapConformancePlugin.
    *  - reset vector from the `externalResetVector` input (as LiteX wires it).
    */
  def clint: Seq[Plugin[VexRiscv]] = Seq(
    iBus(prediction = NONE),
    dBus(earlyInjection = false),
    new StaticMemoryTranslatorPlugin(ioRange = _.msb),
    new DecoderSimplePlugin(catchIllegalInstruction = true),
    new RegFilePlugin(regFileReadyKind = plugin.SYNC, zeroBoot = false),
    new IntAluPlugin,
    new SrcPlugin(separatedAddSub = false, executeInsertion = true),
    new FullBarrelShifterPlugin,
    new HazardSimplePlugin(
      bypassExecute = true,
      bypassMemory = true,
      bypassWriteBack = true,
      bypassWriteBackBuffer = true,
      pessimisticUseSrc = false,
      pessimisticWriteRegFile = false,
      pessimisticAddressMatch = false
    ),
    // fence.i as a jump to the next instruction: IBusSimplePlugin has no
    // cache to flush, but its prefetched word may predate a store.
    new BranchPlugin(earlyBranch = false, catchAddressMisaligned = true, fenceiGenAsAJump = true),
    new MulPlugin,
    new DivPlugin,
    new CsrPlugin(CsrPluginConfig(
      catchIllegalAccess = true,
      mvendorid = 0,
      marchid = 0,
      mimpid = 0,
      mhartid = 0,
      misaExtensionsInit = (1 << 8) | (1 << 12),   // I, M
      misaAccess = CsrAccess.READ_ONLY,
      mtvecAccess = CsrAccess.READ_WRITE,
      mtvecInit = 0x00000000L,
      mepcAccess = CsrAccess.READ_WRITE,
      mscratchGen = true,
      mcauseAccess = CsrAccess.READ_WRITE,
      mbadaddrAccess = CsrAccess.READ_WRITE,
      mcycleAccess = CsrAccess.READ_WRITE,
      minstretAccess = CsrAccess.READ_WRITE,
      ucycleAccess = CsrAccess.READ_ONLY,
      wfiGenAsWait = true,
      ecallGen = true,
      ebreakGen = true,
      xtvecModeGen = true
    )),
    // mtval 0 after ecall and the pc after ebreak, sret illegal: as on `clic`
    new TrapConformancePlugin,
    // a divide in memory is replayed after a pending interrupt, not waited for
    new DivideReplayPlugin,
    new ExternalInterruptArrayPlugin(
      arrayWidth = 32,
      machineMaskCsrId = 0xBC0,
      machinePendingsCsrId = 0xFC0
    ),
    new RetirePortPlugin
  )

  /** clic: the clint pipeline with irqlab's TrapCsrPlugin in place of
    * CsrPlugin and ExternalInterruptArrayPlugin, and irqlab's
    * BankedRegFilePlugin (one bank here; fastirq adds one) in place of
    * RegFilePlugin: a RISC-V CLIC (draft v0.9)
    * core side, fed by the memory-mapped CLIC of the SoC (soc/clic.py) through
    * the `clic_*` ports (valid, id, level, shv in; claim, claimId out).
    * mtvec is hardwired to CLIC mode; docs/CLIC.md has the details. */
  def clic: Seq[Plugin[VexRiscv]] = clint.map {
    case _: RegFilePlugin => new BankedRegFilePlugin(banks = 1)
    case p => p
  }.filter {
    case _: CsrPlugin | _: TrapConformancePlugin | _: DivideReplayPlugin | _: ExternalInterruptArrayPlugin |
         _: RetirePortPlugin => false
    case _ => true
  } ++ Seq(
    new TrapCsrPlugin(clicIdWidth = 12),
    new RetirePortPlugin
  )

  /** fastirq: the clic pipeline plus FastIrqPlugin (a second bank of the
    * caller-saved registers, the interrupted context copied to the stack in
    * the background through the `fastirqSave_*` port, emret with tail
    * chaining; docs in FastIrqPlugin). Off after reset (CSR 0x7C0): then it
    * is a `clic` core with a larger register file. */
  def fastirq: Seq[Plugin[VexRiscv]] = clic.flatMap {
    case _: BankedRegFilePlugin =>
      Seq(new BankedRegFilePlugin(banks = 2, banked = FastIrqPlugin.callerSavedI.contains))
    case r: RetirePortPlugin => Seq(new FastIrqPlugin, r)
    case p => Seq(p)
  }

  /** fastirq-dport: fastirq whose drain stores the frame through the core's
    * own data bus in the cycles execute leaves it free, not through a port
    * of its own (FastIrqPlugin `saveThroughDataBus`): no `fastirqSave_*`
    * ports, the DTCM keeps one write port. */
  def fastirqDataPort: Seq[Plugin[VexRiscv]] = fastirq.map {
    case _: FastIrqPlugin => new FastIrqPlugin(saveThroughDataBus = true)
    case p => p
  }

  /** fastctx: fastirq with 8 task contexts (FastIrqPlugin `contexts`): the
    * register file once per context, a return that switches into another
    * context (CSRs 0x7C2, 0x7C3). */
  def fastctx: Seq[Plugin[VexRiscv]] = fastirq.map {
    case _: BankedRegFilePlugin =>
      new BankedRegFilePlugin(banks = 2, banked = FastIrqPlugin.callerSavedI.contains, contexts = 8)
    case _: FastIrqPlugin => new FastIrqPlugin(contexts = 8)
    case p => p
  }

  /** clic-cache: the clic pipeline with VexRiscv's caches in front of the
    * Wishbone bus: IBusCachedPlugin and DBusCachedPlugin in place of
    * IBusSimplePlugin and DBusSimplePlugin. Each cache 4 KiB, direct mapped
    * (1 way), 32-byte lines (8-word bursts); the instruction cache answers
    * in one cycle (twoCycleCache off: its injector stage sits before decode,
    * as IBusSimplePlugin's does, which BankedRegFilePlugin relies on). The
    * data cache is write-through; addresses with the msb set (0x8000_0000
    * and up: CSRs, CLIC, trace unit, the SoC's `io_regions`) bypass it
    * (StaticMemoryTranslatorPlugin's ioRange). fence.i flushes the
    * instruction cache (and, as on clic, jumps to the next instruction);
    * the data-cache flush is VexRiscv's MISC-MEM funct3 5 (0x0000500F). */
  def clicCache: Seq[Plugin[VexRiscv]] = clic.map {
    case _: IBusSimplePlugin => new IBusCachedPlugin(
      resetVector = null,               // `externalResetVector` input
      prediction = NONE,
      compressedGen = false,
      config = InstructionCacheConfig(
        cacheSize = 4096, bytePerLine = 32, wayCount = 1, addressWidth = 32,
        cpuDataWidth = 32, memDataWidth = 32,
        catchIllegalAccess = false, catchAccessFault = true,
        asyncTagMemory = false, twoCycleRam = false, twoCycleCache = false))
    // The command buffer (s2m, no added cycle) accepts a line refill's one
    // command at once: DataCache counts the refill's words only from its
    // acceptance, and the Wishbone bridge accepts it at the burst's last beat.
    case _: DBusSimplePlugin => new DBusCachedPlugin(
      dBusCmdSlavePipe = true,
      config = DataCacheConfig(
        cacheSize = 4096, bytePerLine = 32, wayCount = 1, addressWidth = 32,
        cpuDataWidth = 32, memDataWidth = 32,
        catchAccessError = true, catchIllegal = false, catchUnaligned = true))
    case p => p
  }

  /** A variant with its buses left native (NativeBusPlugin): the SoC
    * attaches tightly coupled memories beside the core (soc/tcm.py). The
    * pipeline is the same and so are its cycles; besides the ports, the
    * register file is always BankedRegFilePlugin (one bank where the variant
    * had RegFilePlugin), whose read does not wait for decode's stall: with
    * the TCMs the stall comes from the data bus's address decode
    * (soc/tcm.py, DBusSplit), the SoC's critical path on the ULX3S. */
  def withNativeBuses(plugins: Seq[Plugin[VexRiscv]]): Seq[Plugin[VexRiscv]] =
    plugins.map {
      // The TCMs beside the core serve a read port for the CLIC's pointer
      // table (soc/tcm.py VectorPrefetch): the trap skips the table fetch.
      case t: TrapCsrPlugin => new TrapCsrPlugin(t.clicIdWidth, t.resetMtvec, t.vectorWait, vectorPrefetch = true)
      case _: RegFilePlugin => new BankedRegFilePlugin(banks = 1)
      case p => p
    } :+ new NativeBusPlugin

  val all: Map[String, () => Seq[Plugin[VexRiscv]]] = Map(
    "clint" -> (() => clint),
    "clic" -> (() => clic),
    "clic-cache" -> (() => clicCache),
    "clint-native" -> (() => withNativeBuses(clint)),
    "clic-native" -> (() => withNativeBuses(clic)),
    "fastirq" -> (() => fastirq),
    "fastirq-native" -> (() => withNativeBuses(fastirq)),
    "fastirq-dport-native" -> (() => withNativeBuses(fastirqDataPort)),
    "fastctx-native" -> (() => withNativeBuses(fastctx))
  )

  /** Pipeline levers: one change of the pipeline each, measured alone on top
    * of a variant as `<variant>+<lever>` (cores/README.md, "Pipeline
    * levers"). They are not variants of their own: no row uses them unless
    * asked for one by name. */
  val levers: Map[String, Seq[Plugin[VexRiscv]] => Seq[Plugin[VexRiscv]]] = Map(
    // jal and backward branches taken in decode, not in memory
    "predict" -> (_.map {
      case _: IBusSimplePlugin => iBus(prediction = STATIC)
      case p => p
    }),
    // the product in execute: usable by the next instruction
    "mul1" -> (_.map {
      case _: MulPlugin => new MulEarlyPlugin(inExecute = true)
      case p => p
    }),
    // the product in memory: one wait for the next instruction, not two
    "mul2" -> (_.map {
      case _: MulPlugin => new MulEarlyPlugin(inExecute = false)
      case p => p
    }),
    // a load's result bypassed from memory: one wait for the next instruction, not two
    "load-early" -> (_.map {
      case _: DBusSimplePlugin => dBus(earlyInjection = true)
      case p => p
    })
  )

  /** The plugin list of a variant name: a variant, or `<variant>+<lever>`. */
  def plugins(name: String): Option[Seq[Plugin[VexRiscv]]] = name.split('+') match {
    case Array(v) => all.get(v).map(_())
    case Array(v, l) => for (base <- all.get(v); lever <- levers.get(l)) yield lever(base())
    case _ => None
  }

  def names: Seq[String] = all.keys.toSeq.sorted

  def leverNames: Seq[String] = levers.keys.toSeq.sorted
}

/** `GenCore <variant> <output directory>`: writes `IrqlabCore_<variant>.v`.
  * `GenCore --list <file>`: writes the variant names, one a line, then the
  * levers as `+<lever>`: the one list of both, which the Python side
  * (irqlab/builders/core.py) asks. */
object GenCore {
  /** The Verilog module name: `-` and `+` are not allowed there, so they become `_`. */
  def topName(variant: String) = s"IrqlabCore_${variant.replace('-', '_').replace('+', '_')}"

  def generate(variant: String, outDir: String): Unit = {
    val plugins = Variants.plugins(variant).getOrElse {
      System.err.println(s"unknown variant '$variant' (known: ${Variants.names.mkString(", ")}; " +
        s"levers, as <variant>+<lever>: ${Variants.leverNames.mkString(", ")})")
      sys.exit(2)
    }
    new java.io.File(outDir).mkdirs()
    val config = SpinalConfig(
      targetDirectory = outDir,
      netlistFileName = topName(variant) + ".v",
      defaultConfigForClockDomains = ClockDomainConfig(resetKind = spinal.core.SYNC)
    )
    config.generateVerilog {
      val cpu = new VexRiscv(VexRiscvConfig(plugins.toList))
      cpu.setDefinitionName(topName(variant))
      val native = cpu.plugins.exists(_.isInstanceOf[NativeBusPlugin])
      if (!native) cpu.rework {
        for (p <- cpu.plugins) p match {
          case p: IBusSimplePlugin =>
            p.iBus.setAsDirectionLess()
            master(p.iBus.toWishbone()).setName("iBusWishbone")
          case p: DBusSimplePlugin =>
            p.dBus.setAsDirectionLess()
            master(p.dBus.toWishbone()).setName("dBusWishbone")
          case p: IBusCachedPlugin =>
            p.iBus.setAsDirectionLess()
            master(p.iBus.toWishbone()).setName("iBusWishbone")
          case p: DBusCachedPlugin =>
            p.dBus.setAsDirectionLess()
            master(p.dBus.toWishbone()).setName("dBusWishbone")
          case _ =>
        }
      }
      cpu
    }
  }

  def main(args: Array[String]): Unit = {
    if (args.length != 2) {
      System.err.println(s"usage: GenCore <variant>|--list <output directory|file>   (variants: ${Variants.names.mkString(", ")})")
      sys.exit(2)
    }
    if (args(0) == "--list") {
      val out = new java.io.PrintWriter(args(1))
      // the variants, then the levers as `+<lever>`
      try { Variants.names.foreach(out.println); Variants.leverNames.foreach(l => out.println("+" + l)) }
      finally out.close()
    } else generate(args(0), args(1))
  }
}
