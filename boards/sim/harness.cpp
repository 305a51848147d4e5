// irqlab simulation harness: clocks the Verilated SoC and connects its byte
// streams to the host.
//
//   console (UART stream)  -> stdout (and --console-file); --console-in FILE is
//                             fed to the console input (the boot code's loader)
//   trace stream           -> --trace-tcp PORT (waits for one client first, so
//                             nothing is lost) or --trace-file PATH
//   RTL probes             -> --probe-file PATH: one line per change of a traced
//                             hardware line ("H ts hw") and per stimulus-port
//                             store ("S ts chan data"), with the timestamp the
//                             trace unit's counter held in that cycle; with
//                             --probe-pc ADDR also each cycle an instruction at
//                             that pc retires ("P ts pc"; not a trap entry to
//                             it, as the trace unit's comparators) and each
//                             cycle an instruction with that pc enters execute
//                             ("X ts pc", the core's exec_valid); with
//                             --probe-retire LO:HI each cycle the retire port
//                             shows a pc in [LO, HI): "R ts pc trap" (trap 1:
//                             a trap entry whose handler target is pc), and
//                             each cycle an instruction with a pc there
//                             enters execute: "E ts pc"
//   Modbus UART line       -> --modbus-tcp PORT: a serial bridge (ModbusBridge):
//                             bytes from a client go onto the SoC's Modbus rx
//                             line as 8E1 characters at the bit rate the UART
//                             is set to, its tx line is sampled back into bytes
//                             (pyserial's socket://127.0.0.1:PORT); clients may
//                             come and go, the line idles without one
//   memories at the end    -> +irqlab_dump_<rom|sram|main_ram>=PATH (Verilator
//                             plusargs): the gateware's final blocks write that
//                             memory with $writememh when top->final() runs
//                             (boards/sim/memdump.py)
//
// The trace stream carries TRACE_BEAT_BYTES bytes a cycle (at most 8; set
// by boards/sim/target.py through the Makefile).
//
// The run ends when the firmware writes its exit code (simctrl) and the trace
// stream has drained, or at --max-cycles (exit 3). Exit status = firmware code.
// Its last line on stderr gives the cycles run and the speed, per wall second
// and per second of CPU time (irqlab/drivers/sim.py sim_speed reads it).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <string>
#include <vector>

#include "verilated.h"
#include VTOP_HEADER

namespace {

struct Sink {
    int fd = -1;
    FILE *file = nullptr;
    std::vector<uint8_t> buf;
    uint64_t total = 0;

    void put(uint8_t b) {
        buf.push_back(b);
        if (buf.size() >= (1 << 16)) flush();
    }
    void flush() {
        size_t off = 0;
        while (off < buf.size()) {
            ssize_t n;
            if (fd >= 0) {
                n = send(fd, buf.data() + off, buf.size() - off, MSG_NOSIGNAL);
            } else if (file) {
                n = (ssize_t)fwrite(buf.data() + off, 1, buf.size() - off, file);
            } else {
                n = (ssize_t)(buf.size() - off);
            }
            if (n <= 0) {
                fprintf(stderr, "irqlab-sim: trace output failed (client gone?)\n");
                exit(4);
            }
            off += (size_t)n;
        }
        total += buf.size();
        buf.clear();
        if (file) fflush(file);
    }
};

// A listening socket on 127.0.0.1:port (one client), or exit 2 saying why.
int listen_socket(int port, const char *what) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons((uint16_t)port);
    if (bind(s, (sockaddr *)&addr, sizeof addr) < 0 || listen(s, 1) < 0) {
        fprintf(stderr, "irqlab-sim: cannot listen on port %d%s: %s\n", port, what, strerror(errno));
        exit(2);
    }
    return s;
}

int listen_once(int port) {
    int s = listen_socket(port, "");
    fprintf(stderr, "irqlab-sim: waiting for the trace client on 127.0.0.1:%d\n", port);
    int c = accept(s, nullptr, nullptr);
    close(s);
    if (c < 0) {
        fprintf(stderr, "irqlab-sim: accept failed\n");
        exit(2);
    }
    return c;
}

// The simulated SoC's Modbus serial line on a TCP socket. Characters are
// 8E1 (start, 8 data bits LSB first, even parity, stop), each bit `divisor`
// cycles, the divisor read from the SoC (its UART's setting) at each
// character's start: bytes and the UART's interrupts arrive at the real rate
// of the configured baud rate, in cycles of the sim clock. The socket is
// polled every POLL cycles (and whenever a character has been sampled).
class ModbusBridge {
public:
    void listen_on(int port) {
        lfd_ = listen_socket(port, " for Modbus");
        fcntl(lfd_, F_SETFL, O_NONBLOCK);
        fprintf(stderr, "irqlab-sim: Modbus serial bridge on 127.0.0.1:%d\n", port);
    }

    // One cycle: the SoC's tx level and divisor in, the rx level for the next cycle out.
    uint8_t step(uint8_t tx, uint32_t divisor) {
        if (lfd_ < 0) return 1;
        if (++tick_ >= POLL) { tick_ = 0; poll(); }
        sample_tx(tx, divisor);
        return drive_rx(divisor);
    }

private:
    static constexpr unsigned POLL = 4096;
    int lfd_ = -1, fd_ = -1;
    unsigned tick_ = 0;
    std::deque<uint8_t> in_;          // from the client, not yet on the line
    std::vector<uint8_t> out_;        // sampled from tx, not yet sent
    uint32_t rx_shift_ = 0, rx_bits_ = 0, rx_cnt_ = 0;
    uint32_t tx_shift_ = 0, tx_bits_ = 0, tx_cnt_ = 0;
    bool tx_active_ = false;

    void poll() {
        if (fd_ < 0) {
            fd_ = accept(lfd_, nullptr, nullptr);
            if (fd_ < 0) return;
            fcntl(fd_, F_SETFL, O_NONBLOCK);
        }
        uint8_t buf[512];
        ssize_t n;
        while ((n = recv(fd_, buf, sizeof buf, 0)) > 0) in_.insert(in_.end(), buf, buf + n);
        if (n == 0) { close(fd_); fd_ = -1; in_.clear(); out_.clear(); return; }   // the client left
        if (!out_.empty()) {
            n = send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL);
            if (n > 0) out_.erase(out_.begin(), out_.begin() + n);
        }
    }

    uint8_t drive_rx(uint32_t divisor) {
        if (rx_bits_ == 0) {
            if (in_.empty() || divisor == 0) return 1;
            uint32_t b = in_.front();
            in_.pop_front();
            uint32_t parity = __builtin_popcount(b) & 1;
            rx_shift_ = (b << 1) | (parity << 9) | (1u << 10);   // start bit 0 at bit 0
            rx_bits_ = 11;
            rx_cnt_ = divisor;
        }
        uint8_t level = rx_shift_ & 1;
        if (--rx_cnt_ == 0) {
            rx_shift_ >>= 1;
            rx_cnt_ = divisor;
            rx_bits_--;
        }
        return level;
    }

    void sample_tx(uint8_t tx, uint32_t divisor) {
        if (!tx_active_) {
            if (tx || divisor == 0) return;
            tx_active_ = true;                  // a start bit: sample mid-bit from here
            tx_cnt_ = divisor > 1 ? divisor / 2 : 1;
            tx_bits_ = 0;
            tx_shift_ = 0;
            return;
        }
        if (--tx_cnt_ != 0) return;
        tx_cnt_ = divisor;
        if (tx_bits_ == 0 && tx) { tx_active_ = false; return; }   // not a start bit after all
        tx_shift_ |= (uint32_t)tx << tx_bits_;
        if (++tx_bits_ == 11) {                 // start, 8 data, parity, stop
            tx_active_ = false;
            out_.push_back((uint8_t)(tx_shift_ >> 1));
            tick_ = POLL;                       // send it at the next cycle
        }
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    int trace_port = -1, modbus_port = -1;
    const char *trace_path = nullptr, *probe_path = nullptr, *console_path = nullptr;
    const char *console_in_path = nullptr;
    uint64_t max_cycles = 2000000000ull;
    long long probe_pc = -1;
    uint32_t retire_lo = 0, retire_hi = 0;   // --probe-retire LO:HI (empty: off)
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> const char * {
            if (i + 1 >= argc) { fprintf(stderr, "irqlab-sim: %s needs a value\n", a.c_str()); exit(2); }
            return argv[++i];
        };
        if (a == "--trace-tcp") trace_port = atoi(next());
        else if (a == "--trace-file") trace_path = next();
        else if (a == "--modbus-tcp") modbus_port = atoi(next());
        else if (a == "--probe-file") probe_path = next();
        else if (a == "--console-file") console_path = next();
        else if (a == "--console-in") console_in_path = next();
        else if (a == "--max-cycles") max_cycles = strtoull(next(), nullptr, 0);
        else if (a == "--probe-pc") probe_pc = strtoll(next(), nullptr, 0);
        else if (a == "--probe-retire") {
            char *end;
            const char *v = next();
            retire_lo = strtoul(v, &end, 0);
            if (*end != ':') { fprintf(stderr, "irqlab-sim: --probe-retire LO:HI\n"); return 2; }
            retire_hi = strtoul(end + 1, nullptr, 0);
        }
        else if (a.rfind("+", 0) == 0) continue;  // Verilator plusargs
        else { fprintf(stderr, "irqlab-sim: unknown option %s\n", a.c_str()); return 2; }
    }

    ModbusBridge modbus;   // listening before the trace client is awaited: a master may connect any time
    if (modbus_port >= 0) modbus.listen_on(modbus_port);
    Sink trace;
    if (trace_port >= 0) trace.fd = listen_once(trace_port);
    else if (trace_path) {
        trace.file = fopen(trace_path, "wb");
        if (!trace.file) { fprintf(stderr, "irqlab-sim: cannot write %s\n", trace_path); return 2; }
    }
    FILE *probe = probe_path ? fopen(probe_path, "w") : nullptr;
    FILE *console = console_path ? fopen(console_path, "w") : nullptr;

    std::vector<uint8_t> console_in;
    if (console_in_path) {
        FILE *f = fopen(console_in_path, "rb");
        if (!f) { fprintf(stderr, "irqlab-sim: cannot read %s\n", console_in_path); return 2; }
        int ch;
        while ((ch = fgetc(f)) != EOF) console_in.push_back((uint8_t)ch);
        fclose(f);
    }
    size_t console_in_pos = 0;

    auto *top = new VTOP;
    top->serial_sink_valid = 0;
    top->serial_source_ready = 1;
    top->trace_ready = 1;
    top->sys_rst = 1;

    auto t_start = std::chrono::steady_clock::now();
    std::clock_t cpu_start = std::clock();
    uint64_t cycle = 0, idle = 0;
    uint32_t hw_prev = 0;
    bool done = false;
    int code = 3;
    for (; cycle < max_cycles; cycle++) {
        if (cycle == 8) top->sys_rst = 0;
        // Console input: one byte offered at a time, taken when the SoC is ready.
        bool offered = console_in_pos < console_in.size() && cycle > 8;
        top->serial_sink_valid = offered;
        if (offered) top->serial_sink_data = console_in[console_in_pos];
        top->sys_clk = 0;
        top->eval();
        bool taken = offered && top->serial_sink_ready;
        top->sys_clk = 1;
        top->eval();
        if (taken) console_in_pos++;
        top->modbus_rx = modbus.step(top->modbus_tx, top->modbus_divisor);
        // Outputs now hold this cycle's values; with ready held at 1 a valid
        // byte is consumed at the next edge.
        if (top->serial_source_valid) {
            char c = (char)top->serial_source_data;
            fputc(c, stdout);
            if (c == '\n') fflush(stdout);
            if (console) fputc(c, console);
        }
        if (top->trace_valid) {
            // TRACE_BEAT_BYTES (boards/sim/target.py) bytes a beat, first byte lowest.
            uint64_t beat = top->trace_data;
            for (unsigned b = 0; b < TRACE_BEAT_BYTES; b++)
                trace.put((uint8_t)(beat >> (8 * b)));
            idle = 0;
        } else {
            idle++;
        }
        if (probe && top->probe_enable) {
            uint32_t hw = top->probe_hw;
            if (hw != hw_prev)
                fprintf(probe, "H %llu %08x\n", (unsigned long long)top->probe_ts, hw);
            if (top->probe_sw_valid)
                fprintf(probe, "S %llu %u %08x\n", (unsigned long long)top->probe_ts,
                        (unsigned)top->probe_sw_chan, (unsigned)top->probe_sw_data);
            // a retirement at the pc, as the trace unit's comparators (a trap shows its target there)
            if (probe_pc >= 0 && top->probe_retire_valid && !top->probe_retire_trap &&
                top->probe_retire_pc == (uint32_t)probe_pc)
                fprintf(probe, "P %llu %08x\n", (unsigned long long)top->probe_ts,
                        (unsigned)top->probe_retire_pc);
            if (probe_pc >= 0 && top->probe_exec_valid && top->probe_exec_pc == (uint32_t)probe_pc)
                fprintf(probe, "X %llu %08x\n", (unsigned long long)top->probe_ts,
                        (unsigned)top->probe_exec_pc);
            if (top->probe_retire_valid && top->probe_retire_pc >= retire_lo && top->probe_retire_pc < retire_hi)
                fprintf(probe, "R %llu %08x %u\n", (unsigned long long)top->probe_ts,
                        (unsigned)top->probe_retire_pc, (unsigned)top->probe_retire_trap);
            if (top->probe_exec_valid && top->probe_exec_pc >= retire_lo && top->probe_exec_pc < retire_hi)
                fprintf(probe, "E %llu %08x\n", (unsigned long long)top->probe_ts, (unsigned)top->probe_exec_pc);
        }
        hw_prev = top->probe_hw;
        if (!done && top->simctrl_done) {
            done = true;
            code = top->simctrl_code;
        }
        // Done and the trace has been quiet long enough to have drained.
        if (done && idle > 50000) break;
    }
    trace.flush();
    fflush(stdout);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    // Also per second of this process's CPU time: on a shared machine the wall
    // figure says as much about the other jobs as about the model.
    double cpu = (double)(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    fprintf(stderr, "irqlab-sim: %llu cycles in %.1f s (%.2f Mcycles/s; %.1f s of CPU, %.2f Mcycles/CPU-s), "
            "%llu trace bytes%s\n",
            (unsigned long long)cycle, secs, cycle / secs / 1e6, cpu, cpu > 0 ? cycle / cpu / 1e6 : 0.0,
            (unsigned long long)trace.total, done ? "" : ", stopped at --max-cycles");
    if (probe) fclose(probe);
    if (console) fclose(console);
    if (trace.file) fclose(trace.file);
    if (trace.fd >= 0) close(trace.fd);
    top->final();
    delete top;
    return done ? code : 3;
}
