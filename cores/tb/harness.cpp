// Reusable Verilator harness for irqlab's own cores (IrqlabCore_<variant>).
//
// A flat little-endian RAM serves both Wishbone buses (iBus, dBus; ACK one
// cycle after the request plus optional wait states, SEL honoured on writes).
// A binary image is loaded at --base, which is also the reset vector
// (externalResetVector). Interrupt inputs are held low.
//
// Magic (MMIO) words, outside the RAM, written with sw by the program:
//   0xF0000000  done: the value is the exit code (0 = pass); the run ends
//   0xF0000004  signature begin address
//   0xF0000008  signature end address (exclusive)
//   0xF000000C  putchar (low byte to stdout)
// When the run ends, the words in [begin, end) are written to --sig as one
// 8-digit lower-case hex word per line (the riscv-arch-test style dump).
//
// usage: Vharness --bin prog.bin [--base 0x10000] [--sig out.txt]
//                 [--max-cycles N] [--wait N [--wait-seed S]] [--trace-retire]
// --wait N: every bus request is acknowledged N cycles later than the fastest
// (ACK in the cycle after the request); with --wait-seed S (not 0) each
// request instead waits a pseudo-random 0..N cycles (a fixed sequence per S).
// exit status: the program's done value, or 100 on timeout, 101 on a bus
// access outside RAM and the magic words, 2 on bad arguments.
//
// Cores with native buses (NativeBusPlugin, -DNATIVE_BUS) are served the
// way soc/tcm.py serves them from its TCMs: a command fires when valid and
// ready; an instruction or load word answers in the next cycle (the load's
// answer held until the next command), a store is written at the edge. With
// --wait N, cmd_ready is low for the N cycles after each fire (random 0..N
// with --wait-seed), which exercises the same stall paths.
//
// The top module is selected at build time: -DTOP_HEADER='"VIrqlabCore_clint.h"'
// -DTOP_CLASS=VIrqlabCore_clint (tests/test_isa.py does that).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "verilated.h"
#include TOP_HEADER

static const uint32_t MAGIC_DONE = 0xF0000000u;
static const uint32_t MAGIC_SIG_BEGIN = 0xF0000004u;
static const uint32_t MAGIC_SIG_END = 0xF0000008u;
static const uint32_t MAGIC_PUTC = 0xF000000Cu;

static const uint32_t RAM_BYTES = 4u << 20;   // 4 MiB at address 0

struct Ram {
  std::vector<uint32_t> w = std::vector<uint32_t>(RAM_BYTES / 4, 0);
  bool in(uint32_t addr) const { return addr < RAM_BYTES; }
};

// A store from the data side: RAM (byte lanes from sel), or one of the magic
// addresses (end with a status, the signature range, a console character).
static void data_write(Ram &ram, uint32_t a, uint32_t sel, uint32_t wd,
                       uint32_t &sig_begin, uint32_t &sig_end, int &status) {
  if (ram.in(a)) {
    uint32_t m = 0;
    for (int b = 0; b < 4; b++) if (sel >> b & 1) m |= 0xFFu << (8 * b);
    ram.w[a >> 2] = (ram.w[a >> 2] & ~m) | (wd & m);
  } else if (a == MAGIC_DONE) {
    status = (int)(wd & 0xFF);
  } else if (a == MAGIC_SIG_BEGIN) {
    sig_begin = wd;
  } else if (a == MAGIC_SIG_END) {
    sig_end = wd;
  } else if (a == MAGIC_PUTC) {
    putchar(wd & 0xFF);
  } else {
    fprintf(stderr, "dBus write outside RAM: %08x = %08x\n", a, wd);
    status = 101;
  }
}

struct Port {           // one Wishbone slave port's registered state
  bool ack = false;
  uint32_t rdata = 0;
  int wait = 0;         // remaining wait cycles of the current request
  bool busy = false;
};

int main(int argc, char** argv) {
  std::string bin, sig;
  uint32_t base = 0x10000;
  uint64_t max_cycles = 2000000;
  int waitstates = 0;
  uint64_t wait_seed = 0;
  bool trace = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a.c_str()); exit(2); }
      return argv[++i];
    };
    if (a == "--bin") bin = next();
    else if (a == "--sig") sig = next();
    else if (a == "--base") base = strtoul(next(), nullptr, 0);
    else if (a == "--max-cycles") max_cycles = strtoull(next(), nullptr, 0);
    else if (a == "--wait") waitstates = atoi(next());
    else if (a == "--wait-seed") wait_seed = strtoull(next(), nullptr, 0);
    else if (a == "--trace-retire") trace = true;
    else if (a.rfind("+verilator", 0) == 0) ;
    else { fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (bin.empty()) { fprintf(stderr, "usage: %s --bin prog.bin [--base A] [--sig F]\n", argv[0]); return 2; }

  Ram ram;
  {
    FILE* f = fopen(bin.c_str(), "rb");
    if (!f) { perror(bin.c_str()); return 2; }
    std::vector<uint8_t> data;
    uint8_t buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + n);
    fclose(f);
    if (base % 4 || base + data.size() > RAM_BYTES) { fprintf(stderr, "image does not fit\n"); return 2; }
    uint8_t* bytes = reinterpret_cast<uint8_t*>(ram.w.data());   // host is little-endian
    memcpy(bytes + base, data.data(), data.size());
  }

  Verilated::commandArgs(argc, argv);
  TOP_CLASS* t = new TOP_CLASS;
  t->externalResetVector = base;
#ifdef HAS_CLIC
  t->clic_valid = 0;                       // no interrupt source in this harness
  t->clic_above = 0;
  t->clic_aboveAlt = 0;
  t->clic_idKept = 1;
#else
  t->timerInterrupt = 0;
  t->softwareInterrupt = 0;
  t->externalInterruptArray = 0;
#endif
#ifdef NATIVE_BUS
  t->iBus_rsp_payload_error = 0;
  t->dBus_rsp_error = 0;
  t->iBus_rsp_valid = 0;
  t->dBus_rsp_ready = 0;
  t->iBus_cmd_ready = 1;
  t->dBus_cmd_ready = 1;
#else
  t->iBusWishbone_ERR = 0;
  t->dBusWishbone_ERR = 0;
  t->iBusWishbone_ACK = 0;
  t->dBusWishbone_ACK = 0;
#endif
  t->reset = 1;
  t->clk = 0;
  t->eval();

  Port ip, dp;
  uint32_t sig_begin = 0, sig_end = 0;
  int status = -1;
  uint64_t cyc = 0, retired = 0;
  for (; cyc < max_cycles && status < 0; cyc++) {
    if (cyc == 5) t->reset = 0;
    // Next state of the slaves from the outputs before the edge (nonblocking
    // semantics: the core samples the old ACK/DAT at this edge).
    Port ni = ip, nd = dp;
    ni.ack = nd.ack = false;
    // A request is served after `waitstates` extra cycles: fire() says
    // whether it is served at this edge and advances the wait counter.
    auto draw = [&]() {
      if (!wait_seed || waitstates == 0) return waitstates;
      wait_seed = wait_seed * 6364136223846793005ull + 1442695040888963407ull;
      return (int)((wait_seed >> 33) % (uint64_t)(waitstates + 1));
    };
    auto fire = [&](const Port& p, Port& n, bool req) {
      if (!req || p.ack) return false;
      int w = p.busy ? p.wait : draw();
      if (w == 0) { n.busy = false; n.ack = true; return true; }
      n.busy = true;
      n.wait = w - 1;
      return false;
    };
#ifdef NATIVE_BUS
    // Native buses: nb_* hold this cycle's ready and the answers in flight.
    bool i_fire = t->iBus_cmd_valid && t->iBus_cmd_ready;
    bool d_fire = t->dBus_cmd_valid && t->dBus_cmd_ready;
    bool i_rsp = false;
    uint32_t i_inst = 0;
    if (i_fire) {
      uint32_t a = t->iBus_cmd_payload_pc & ~3u;
      if (!ram.in(a)) { fprintf(stderr, "iBus read outside RAM: %08x\n", a); status = 101; break; }
      i_rsp = true;
      i_inst = ram.w[a >> 2];
    }
    if (d_fire) {
      uint32_t a = t->dBus_cmd_payload_address & ~3u, low = t->dBus_cmd_payload_address & 3u;
      uint32_t size = t->dBus_cmd_payload_size;
      uint32_t sel = size == 0 ? 1u << low : size == 1 ? 3u << low : 0xFu;
      uint32_t wd = t->dBus_cmd_payload_data;
      nd.ack = false;                       // the held load answer goes with any new command
      if (t->dBus_cmd_payload_wr) {
        data_write(ram, a, sel, wd, sig_begin, sig_end, status);
      } else {
        if (!ram.in(a)) { fprintf(stderr, "dBus read outside RAM: %08x\n", a); status = 101; break; }
        nd.ack = true;
        nd.rdata = ram.w[a >> 2];
      }
    } else {
      nd.ack = dp.ack;                      // held
    }
    // cmd_ready of the next cycle: low for a drawn number of cycles after a fire.
    if (i_fire) ni.wait = draw();
    else if (ni.wait > 0) ni.wait--;
    if (d_fire) nd.wait = draw();
    else if (nd.wait > 0) nd.wait--;
#else
    if (fire(ip, ni, t->iBusWishbone_CYC && t->iBusWishbone_STB)) {
      uint32_t a = (uint32_t)t->iBusWishbone_ADR << 2;
      if (!ram.in(a)) { fprintf(stderr, "iBus read outside RAM: %08x\n", a); status = 101; break; }
      ni.rdata = ram.w[a >> 2];
    }
    if (fire(dp, nd, t->dBusWishbone_CYC && t->dBusWishbone_STB)) {
      uint32_t a = (uint32_t)t->dBusWishbone_ADR << 2;
      uint32_t sel = t->dBusWishbone_SEL, wd = t->dBusWishbone_DAT_MOSI;
      if (t->dBusWishbone_WE) {
        data_write(ram, a, sel, wd, sig_begin, sig_end, status);
        nd.rdata = 0;
      } else {
        if (!ram.in(a)) { fprintf(stderr, "dBus read outside RAM: %08x\n", a); status = 101; break; }
        nd.rdata = ram.w[a >> 2];
      }
    }
#endif
    t->clk = 1;
    t->eval();
    if (!t->reset && t->retire_valid) {
      if (!t->retire_trap) retired++;
      if (trace)
        printf("R %llu %08x trap=%d cause=%02x mret=%d\n", (unsigned long long)cyc, t->retire_pc,
               t->retire_trap, t->retire_cause, t->retire_mret);
    }
    ip = ni;
    dp = nd;
#ifdef NATIVE_BUS
    t->iBus_rsp_valid = i_rsp;
    t->iBus_rsp_payload_inst = i_inst;
    t->dBus_rsp_ready = dp.ack;
    t->dBus_rsp_data = dp.rdata;
    t->iBus_cmd_ready = ip.wait == 0;
    t->dBus_cmd_ready = dp.wait == 0;
#else
    t->iBusWishbone_ACK = ip.ack;
    t->iBusWishbone_DAT_MISO = ip.rdata;
    t->dBusWishbone_ACK = dp.ack;
    t->dBusWishbone_DAT_MISO = dp.rdata;
#endif
    t->clk = 0;
    t->eval();
  }
  fflush(stdout);
  if (status < 0) {
    fprintf(stderr, "TIMEOUT after %llu cycles\n", (unsigned long long)cyc);
    status = 100;
  }
  fprintf(stderr, "cycles %llu retired %llu status %d\n", (unsigned long long)cyc,
          (unsigned long long)retired, status);
  if (!sig.empty()) {
    FILE* f = fopen(sig.c_str(), "w");
    if (!f) { perror(sig.c_str()); return 2; }
    if (sig_begin % 4 || sig_end < sig_begin || !ram.in(sig_begin) || (sig_end && !ram.in(sig_end - 1))) {
      fprintf(stderr, "bad signature range %08x..%08x\n", sig_begin, sig_end);
      status = status ? status : 102;
    } else {
      for (uint32_t a = sig_begin; a < sig_end; a += 4) fprintf(f, "%08x\n", ram.w[a >> 2]);
    }
    fclose(f);
  }
  t->final();
  delete t;
  return status;
}
