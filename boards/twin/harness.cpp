// The board twin's harness (boards/twin/target.py builds it with the board's
// own project): it clocks the SoC, resets it, and bridges its UART pins to
// TCP sockets at bit level. Nothing else: no trace port, no probes; the
// trace and the console leave the SoC on its serial TX pin, as on the board.
//
//   clock   one simulated cycle = one sys cycle (the PLL stand-in passes the
//           board's clock input through), 1 / --clock-hz seconds
//   reset   the board's reset input (`rst`: the PLL's reset, hence the reset
//           synchronizer) held for RESET_CYCLES, at start and after every
//           session: each client gets a freshly reset board, whose boot
//           code takes one load; the board runs from its reset until its
//           boot code waits (SETTLE_*), then the harness awaits a client
//   serial  --serial-port P (0: any free port), --baud B: the SoC's
//           serial_tx pin is sampled and turned into bytes for the client
//           (8N1, each bit clock_hz / B cycles), the client's bytes go onto
//           serial_rx as characters at that rate, back to back (--rx-gap N:
//           N idle cycles after each, a slower sender than a USB bridge)
//   modbus  --modbus-port P --modbus-baud B [--modbus-parity N|E]: the same
//           for the Modbus UART's pins (8E1 by default: Modbus RTU's framing)
//
// A session starts when a client connects to the serial socket and ends when
// it leaves. A character from the SoC whose stop bit (or parity) is wrong
// means the bridge and the SoC disagree on the line's rate: the harness says
// so on stderr in one line and ends the session at once (the client sees the
// connection close), rather than hand over bytes a board's USB bridge would
// have garbled. With --once the harness exits after one session, with
// status 0 if it ended with the client leaving, 1 on a line error, 3 at
// --max-cycles. Each session ends with a line: its cycles and the speed.
//
// On stdout, once listening: "irqlab-twin: serial socket://127.0.0.1:PORT"
// (and "irqlab-twin: modbus socket://127.0.0.1:PORT"), then "irqlab-twin: ready".
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "verilated.h"
#include VTOP_HEADER

namespace {

constexpr unsigned RESET_CYCLES = 16;
constexpr unsigned POLL_CYCLES = 256;   // socket I/O every this many cycles (a 3 Mbaud character: ~167)
// After a reset, before a client is accepted, the board runs on its own: at
// least SETTLE_CYCLES, then until its serial TX has been idle SETTLE_IDLE
// cycles (the boot code's banner sent), at most SETTLE_MAX. A board's user
// loads it long after its reset; a load that raced the banner would not be
// a board's.
constexpr uint64_t SETTLE_CYCLES = 200000, SETTLE_IDLE = 100000, SETTLE_MAX = 20000000;

int listen_on(int port, const char *what) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons((uint16_t)port);
    if (bind(s, (sockaddr *)&addr, sizeof addr) < 0 || listen(s, 1) < 0) {
        fprintf(stderr, "irqlab-twin: cannot listen on port %d for the %s line: %s\n", port, what, strerror(errno));
        exit(2);
    }
    socklen_t len = sizeof addr;
    getsockname(s, (sockaddr *)&addr, &len);
    printf("irqlab-twin: %s socket://127.0.0.1:%d\n", what, ntohs(addr.sin_port));
    return s;
}

// One UART line between the SoC's pins and a TCP client.
class Line {
public:
    Line(const char *name, double cycles_per_bit, char parity, double gap = 0)
        : name_(name), cpb_(cycles_per_bit), parity_(parity), bits_(parity == 'N' ? 10 : 11), gap_(gap) {}

    void listen(int port) { lfd_ = listen_on(port, name_); fcntl(lfd_, F_SETFL, O_NONBLOCK); }
    bool listening() const { return lfd_ >= 0; }
    bool connected() const { return fd_ >= 0; }

    // Blocks until a client connects (the serial line: a session's start).
    void wait_client() {
        fcntl(lfd_, F_SETFL, 0);
        fd_ = accept(lfd_, nullptr, nullptr);
        fcntl(lfd_, F_SETFL, O_NONBLOCK);
        if (fd_ >= 0) fcntl(fd_, F_SETFL, O_NONBLOCK);
    }

    // Socket I/O; false when the client has left.
    bool io() {
        if (fd_ < 0) {
            if (lfd_ < 0) return true;
            fd_ = accept(lfd_, nullptr, nullptr);
            if (fd_ < 0) return true;
            fcntl(fd_, F_SETFL, O_NONBLOCK);
        }
        uint8_t buf[4096];
        ssize_t n;
        while ((n = recv(fd_, buf, sizeof buf, 0)) > 0) in_.insert(in_.end(), buf, buf + n);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) { drop(); return false; }
        while (!out_.empty()) {
            n = send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL);
            if (n <= 0) {
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
                drop();
                return false;
            }
            out_.erase(out_.begin(), out_.begin() + n);
        }
        return true;
    }

    // The client is gone: its bytes and any character under way with it.
    void drop() {
        if (fd_ >= 0) close(fd_);
        fd_ = -1;
        in_.clear();
        out_.clear();
        rx_busy_ = tx_busy_ = false;
        rx_next_ = 0;
        tx_prev_ = 1;
    }

    // Flushes what was sampled, says end of stream, and lets the client
    // close first (its unread bytes would otherwise reset the connection
    // before it reads ours); a few seconds at most. Then drops the client.
    void finish() {
        if (fd_ >= 0) {
            fcntl(fd_, F_SETFL, 0);
            timeval tv{3, 0};
            setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
            setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            if (!out_.empty()) send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL);
            shutdown(fd_, SHUT_WR);
            uint8_t buf[4096];
            while (recv(fd_, buf, sizeof buf, 0) > 0) {}
        }
        drop();
    }

    // The level of the SoC's rx pin in cycle c: the client's bytes as characters.
    uint8_t rx_level(uint64_t c) {
        if (!rx_busy_) {
            if (in_.empty()) return 1;
            uint32_t b = in_.front();
            in_.pop_front();
            rx_frame_ = b << 1;                                         // start bit 0
            if (parity_ != 'N') rx_frame_ |= (uint32_t)parity_bit(b) << 9;
            rx_frame_ |= 1u << (bits_ - 1);                            // stop bit
            rx_start_ = std::max(rx_next_, (double)c);                 // back to back while bytes wait
            rx_busy_ = true;
        }
        int k = (int)std::floor(((double)c - rx_start_) / cpb_);
        if (k >= bits_) {
            rx_busy_ = false;
            rx_next_ = rx_start_ + bits_ * cpb_ + gap_;
            return rx_level(c);
        }
        return k < 0 ? 1 : (rx_frame_ >> k) & 1;
    }

    // The SoC's tx pin as sampled in cycle c; false on a framing or parity error.
    bool tx_sample(uint8_t level, uint64_t c) {
        if (!tx_busy_) {
            if (tx_prev_ && !level) {                                   // a falling edge: a start bit
                tx_busy_ = true;
                tx_edge_ = (double)c - 0.5;                             // between this sample and the last
                tx_bit_ = 0;
                tx_frame_ = 0;
            }
            tx_prev_ = level;
            return true;
        }
        tx_prev_ = level;
        if ((double)c < tx_edge_ + (tx_bit_ + 0.5) * cpb_) return true;  // not yet the middle of the bit
        if (tx_bit_ == 0 && level) { tx_busy_ = false; return true; }    // a glitch, not a start bit
        tx_frame_ |= (uint32_t)level << tx_bit_;
        if (++tx_bit_ < bits_) return true;
        tx_busy_ = false;
        uint8_t b = (uint8_t)(tx_frame_ >> 1);
        bool stop_ok = (tx_frame_ >> (bits_ - 1)) & 1;
        bool parity_ok = parity_ == 'N' || ((tx_frame_ >> 9) & 1) == parity_bit(b);
        if (!stop_ok || !parity_ok) {
            fprintf(stderr, "irqlab-twin: %s line: %s error in the SoC's character at cycle %llu: the line's "
                    "rate is not the SoC's (%.2f cycles a bit here)\n", name_, stop_ok ? "parity" : "framing",
                    (unsigned long long)c, cpb_);
            return false;
        }
        if (fd_ >= 0) out_.push_back(b);                             // no client: the character is lost
        chars_out_++;
        return true;
    }

    uint64_t chars_out() const { return chars_out_; }

private:
    const char *name_;
    double cpb_;
    char parity_;
    int bits_;
    double gap_;                      // idle cycles between the client's characters on rx
    int lfd_ = -1, fd_ = -1;
    std::deque<uint8_t> in_;
    std::vector<uint8_t> out_;
    bool rx_busy_ = false;
    uint32_t rx_frame_ = 0;
    double rx_start_ = 0, rx_next_ = 0;
    bool tx_busy_ = false;
    uint8_t tx_prev_ = 1;
    double tx_edge_ = 0;
    int tx_bit_ = 0;
    uint32_t tx_frame_ = 0;
    uint64_t chars_out_ = 0;

    uint8_t parity_bit(uint32_t b) const {
        uint8_t odd = __builtin_popcount(b & 0xFF) & 1;
        return parity_ == 'E' ? odd : (uint8_t)!odd;
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    int serial_port = 0, modbus_port = -1;
    double clock_hz = 50e6, baud = 3e6, modbus_baud = 115200, rx_gap = 0;
    char modbus_parity = 'E';
    bool once = false;
    uint64_t max_cycles = 0;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> const char * {
            if (i + 1 >= argc) { fprintf(stderr, "irqlab-twin: %s needs a value\n", a.c_str()); exit(2); }
            return argv[++i];
        };
        if (a == "--serial-port") serial_port = atoi(next());
        else if (a == "--baud") baud = atof(next());
        else if (a == "--clock-hz") clock_hz = atof(next());
        else if (a == "--modbus-port") modbus_port = atoi(next());
        else if (a == "--modbus-baud") modbus_baud = atof(next());
        else if (a == "--modbus-parity") modbus_parity = next()[0];
        else if (a == "--rx-gap") rx_gap = atof(next());
        else if (a == "--once") once = true;
        else if (a == "--max-cycles") max_cycles = strtoull(next(), nullptr, 0);
        else if (a.rfind("+", 0) == 0) continue;  // Verilator plusargs
        else { fprintf(stderr, "irqlab-twin: unknown option %s\n", a.c_str()); return 2; }
    }
    if (baud <= 0 || modbus_baud <= 0 || clock_hz <= 0 || !strchr("NEO", modbus_parity)) {
        fprintf(stderr, "irqlab-twin: bad rate or parity\n");
        return 2;
    }
    Line serial("serial", clock_hz / baud, 'N', rx_gap);
    Line modbus("modbus", clock_hz / modbus_baud, modbus_parity);
    serial.listen(serial_port);
    if (modbus_port >= 0) modbus.listen(modbus_port);
    printf("irqlab-twin: ready\n");
    fflush(stdout);

    auto *top = new VTOP;
    top->serial_rx = 1;
    top->modbus_rx = 1;
    auto cycle = [&]() {
        top->clk25 = 0;
        top->eval();
        top->clk25 = 1;
        top->eval();
    };
    int status = 0;
    for (unsigned session = 1;; session++) {
        top->rst = 1;                       // the board's reset: the PLL's, then the synchronizer
        for (unsigned i = 0; i < RESET_CYCLES; i++) cycle();
        top->rst = 0;
        // The board out of reset before anyone talks to it: the boot code
        // says its line and waits for a load (what it sends, nobody hears).
        status = 0;
        uint64_t c = 0, idle = 0;
        for (; c < SETTLE_CYCLES || (idle < SETTLE_IDLE && c < SETTLE_MAX); c++) {
            cycle();
            idle = top->serial_tx ? idle + 1 : 0;
            if (!serial.tx_sample(top->serial_tx, c)) status = 1;
        }
        serial.drop();                      // a clean line for the client
        serial.wait_client();
        auto t0 = std::chrono::steady_clock::now();
        for (c = 0; !status; c++) {
            if (c % POLL_CYCLES == 0) {
                if (!serial.io()) break;    // the client left: the session's end
                if (modbus.listening()) modbus.io();
            }
            if (max_cycles && c >= max_cycles) {
                fprintf(stderr, "irqlab-twin: stopped at --max-cycles %llu\n", (unsigned long long)max_cycles);
                status = 3;
                break;
            }
            top->serial_rx = serial.rx_level(c);
            top->modbus_rx = modbus.rx_level(c);
            cycle();
            if (!serial.tx_sample(top->serial_tx, c) || !modbus.tx_sample(top->modbus_tx, c)) {
                status = 1;
                break;
            }
        }
        serial.finish();
        modbus.finish();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        fprintf(stderr, "irqlab-twin: session %u: %llu cycles in %.1f s (%.2f Mcycles/s), %llu bytes to the host\n",
                session, (unsigned long long)c, s, c / s / 1e6, (unsigned long long)serial.chars_out());
        if (once) break;
    }
    top->final();
    delete top;
    return status;
}
