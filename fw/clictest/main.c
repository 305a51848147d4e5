/* clictest: a self-checking test suite for the irqlab core's CLIC (soc/clic.py,
 * cores/.../TrapCsrPlugin.scala), in the style of the Hazard3 / NEORV32 test
 * programs: every test is one C function that records what happened (handler
 * order in a buffer, CSR values seen inside handlers), then prints it as lines
 *
 *     T<name>: <observations>
 *
 * The expected lines are written next to each test, in comments of the form
 *
 *     expect: T<name>: <observations>            every firmware build
 *     expect[clic]: T<name>: <observations>      the shv build only
 *     expect[clic-nv]: T<name>: <observations>   the non-vectored build only
 *
 * (each inside its own C comment), and tests/test_clic_fw.py compares them with
 * the console, line by line, per test. A test that does not apply to a build
 * prints "T<name>: skip (<why>)", and its expectation for that build says so.
 *
 * Both builds (fw/common/irq/clic/entry.S): IRQLAB_HW_VECTORING=1 ("clic": every source
 * hardware-vectored through the pointer table; handlers run with MIE=0) and
 * IRQLAB_HW_VECTORING=0 ("clic-nv": mtvec -> the mnxti trampoline; handlers run
 * with MIE=1, so a higher level preempts them at once).
 *
 * Conventions: levels are printed in hex without 0x; an interrupt handler's
 * entry is printed as its source ID, "/<id>" marks the point in handler <id>
 * after the sources it pended were given their chance to preempt it.
 * Sources 16..63 are not connected: only software pends them (edge
 * triggered). Sources 8..15 are interrupt generator lines 0..7.
 * Before each test the runner prints "clictest: run T<name>", so that a
 * crash is attributed to its test. Unexpected interrupts exit 101
 * (irq_unexpected), exceptions 100, an interrupt through the exception entry
 * 102, and a failed internal sanity check of this program 103.
 */
#include "irqlab.h"
#include "clic.h"


#define MTVT CSR_MTVT
#define MNXTI CSR_MNXTI
#define MINTSTATUS CSR_MINTSTATUS
#define MINTTHRESH CSR_MINTTHRESH

#define SHV IRQLAB_HW_VECTORING
#define GEN_SRC(line) (IRQLAB_IRQ_GEN + (line))

static inline unsigned mil(void) { return CSRR(MINTSTATUS) >> 24; }
static inline unsigned mie_bit(void) { return (CSRR(mstatus) & MSTATUS_MIE) ? 1 : 0; }
static inline unsigned mpil_of(uint32_t cause) { return (cause >> 16) & 0xff; }

__attribute__((noreturn)) static void fail(const char *what) {
    console_printf("clictest: internal check failed: %s\n", what);
    irqlab_exit(103);
}

/* ------------------------------------------------------------------ CLIC */

/* A read from the CLIC after a write: the write has reached the CLIC, and
 * when the read's data is back the CLIC's outputs to the core reflect it
 * (soc/clic.py: a write acked in c+1 reaches the outputs in c+2). */
static inline void clic_sync(unsigned id) { (void)CLIC_INTIP(id); }

/* Configure source `id` (enable last, pending cleared); shv as given. */
static void src(unsigned id, unsigned trig, unsigned ctl, unsigned shv, unsigned enable) {
    CLIC_INTIE(id) = 0;
    CLIC_INTATTR(id) = (uint8_t)((trig << 1) | shv);
    CLIC_INTCTL(id) = (uint8_t)ctl;
    CLIC_INTIP(id) = 0;
    CLIC_INTIE(id) = (uint8_t)enable;
    clic_sync(id);
}
/* The same with the build's own vectoring (shv=1 in the shv build). */
static void src_b(unsigned id, unsigned trig, unsigned ctl) { src(id, trig, ctl, SHV, 1); }

static void pend(unsigned id) { CLIC_INTIP(id) = 1; clic_sync(id); }

static void settle(void) {
    for (volatile int i = 0; i < 20; i++)
        ;
}

/* --------------------------------------------------------- event log */

enum { EV_ENTER = 1, EV_BACK, EV_MAIN };
struct ev {
    uint8_t kind, id, mil, mpil, ip, mie;
};
#define NEV 64
static volatile struct ev evlog[NEV];
static volatile unsigned nev;
static volatile unsigned hits[64];

/* Appends with MIE=0: a nv-build handler (MIE=1) may be preempted. */
static void record(unsigned kind, unsigned id, unsigned l, unsigned pl, unsigned ip, unsigned ie) {
    uint32_t st;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(st) :: "memory");
    unsigned n = nev;
    if (n >= NEV) fail("event log full");
    evlog[n].kind = (uint8_t)kind;
    evlog[n].id = (uint8_t)id;
    evlog[n].mil = (uint8_t)l;
    evlog[n].mpil = (uint8_t)pl;
    evlog[n].ip = (uint8_t)ip;
    evlog[n].mie = (uint8_t)ie;
    nev = n + 1;
    if (st & MSTATUS_MIE) irq_global_enable();
}

/* What each entry token shows besides the ID. */
enum { F_MIL = 1, F_MPIL = 2, F_IP = 4, F_MIE = 8 };

static void print_log(unsigned fields) {
    for (unsigned i = 0; i < nev; i++) {
        volatile struct ev *e = &evlog[i];
        const char *sep = "(";
        if (i) console_putc(' ');
        if (e->kind == EV_BACK) console_putc('/');
        if (e->kind == EV_MAIN) console_printf("main");
        else console_printf("%u", e->id);
        if (e->kind == EV_ENTER) {
            if (fields & F_MIL) { console_printf("%smil=%x", sep, e->mil); sep = ","; }
            if (fields & F_MPIL) { console_printf("%smpil=%x", sep, e->mpil); sep = ","; }
            if (fields & F_IP) { console_printf("%sip=%u", sep, e->ip); sep = ","; }
            if (fields & F_MIE) { console_printf("%smie=%u", sep, e->mie); sep = ","; }
            if (*sep == ',') console_putc(')');
        } else if (fields & F_MIL) {
            console_printf("(mil=%x)", e->mil);
        }
    }
}

/* ---------------------------------------------------------- handlers */

/* Per-source actions of the common handler, set by each test. */
static uint64_t act_pend[64];            /* sources the handler pends */
static uint8_t act_nest[64];             /* ... and then lets preempt it (MIE=1) */
static uint8_t act_self_disable[64];     /* clears its own clicintie (level sources) */
static uint8_t act_ecall[64];            /* executes an ecall */
static uint8_t act_gen_line[64];         /* 1 + generator line whose `running` bit is recorded */
static uint8_t act_quiet[64];            /* only counts (no log): the stress test */
static void (*hook)(unsigned id, unsigned phase);  /* test code at entry (0) and after nesting (1) */
static volatile uint32_t gen_running_at_entry;

static void do_ecall(void);

/* With MIE=1, sources pended here may preempt the handler. The shv build's
 * handlers are entered with MIE=0: before enabling interrupts they save mepc
 * and mcause (a nested trap overwrites them; mcause.mpil is the level mret
 * returns to), and restore them with MIE=0 again. The nv build's handlers
 * already run with MIE=1 (the trampoline saved mepc/mcause). */
static void pend_and_nest(uint64_t mask, unsigned nest) {
#if SHV
    uint32_t epc = 0, cause = 0;
    if (nest) {
        epc = CSRR(mepc);
        cause = CSRR(mcause);
    }
#endif
    for (unsigned i = 0; i < 64; i++)
        if (mask >> i & 1) pend(i);
#if SHV
    if (nest) {
        irq_global_enable();
        settle();
        irq_global_disable();
        CSRW(mepc, epc);
        CSRW(mcause, cause);
    }
#else
    (void)nest;
    settle();
#endif
}

static void on_irq(unsigned id) {
    if (act_quiet[id]) {
        hits[id]++;
        return;
    }
    uint32_t cause = CSRR(mcause);
    record(EV_ENTER, id, mil(), mpil_of(cause), CLIC_INTIP(id), mie_bit());
    hits[id]++;
    if (act_gen_line[id]) gen_running_at_entry = gen_running() >> (act_gen_line[id] - 1) & 1;
    if (act_self_disable[id]) {
        CLIC_INTIE(id) = 0;
        clic_sync(id);
    }
    if (act_ecall[id]) do_ecall();
    if (hook) hook(id, 0);
    if (act_pend[id]) {
        pend_and_nest(act_pend[id], act_nest[id]);
        record(EV_BACK, id, mil(), 0, 0, mie_bit());
        if (hook) hook(id, 1);
    }
}

#define H(n) void irq_handler_##n(void) { on_irq(n); }
H(8) H(9) H(10) H(11)
H(16) H(17) H(18) H(19) H(20) H(21) H(22) H(23)
H(24) H(25) H(26) H(27) H(28) H(29) H(30) H(31)

/* Back to a clean state between tests: interrupts off, sources 8..63
 * disabled, level-triggered (edge pending cleared first), nlbits 8, no
 * threshold, no actions, empty log. mil is 0 here unless a test broke it
 * (checked). */
static void reset(void) {
    irq_global_disable();
    for (unsigned i = IRQLAB_IRQ_GEN; i < IRQLAB_CLIC_SOURCES; i++) {
        CLIC_INTIE(i) = 0;
        CLIC_INTATTR(i) = IRQ_TRIG_EDGE << 1;
        CLIC_INTIP(i) = 0;
        CLIC_INTATTR(i) = 0;
        CLIC_INTCTL(i) = 0;
        act_pend[i] = 0;
        act_nest[i] = act_self_disable[i] = act_ecall[i] = act_gen_line[i] = act_quiet[i] = 0;
        hits[i] = 0;
    }
    CLIC_CFG = 8u << 1;
    CSRW(MINTTHRESH, 0);
    hook = 0;
    nev = 0;
    if (mil() != 0) fail("mil not 0 between tests");
}

/* Let pending interrupts in, then close again. */
static void open_window(void) {
    irq_global_enable();
    settle();
    irq_global_disable();
}

/* ========================================================= the tests */

/* Registers as the CLIC presents them (cliccfg, clicinfo, attr/ctl). */
/* expect: Tregs: nvbits=1 nlbits=8 nmbits=0 num_int=64 ctlbits=8 attr=c3 ctl=5a nlbits(w9)=8 nlbits(w3)=3 */
static void t_regs(void) {
    uint32_t cfg = CLIC_CFG, info = CLIC_INFO;
    CLIC_INTATTR(16) = 0x03;             /* edge, shv (mode bits read 11) */
    CLIC_INTCTL(16) = 0x5a;
    unsigned attr = CLIC_INTATTR(16), ctl = CLIC_INTCTL(16);
    CLIC_CFG = 9u << 1;
    unsigned w9 = (CLIC_CFG >> 1) & 0xf;
    CLIC_CFG = 3u << 1;
    unsigned w3 = (CLIC_CFG >> 1) & 0xf;
    console_printf("Tregs: nvbits=%u nlbits=%u nmbits=%u num_int=%u ctlbits=%u attr=%x ctl=%x "
                   "nlbits(w9)=%u nlbits(w3)=%u\n",
                   cfg & 1, (cfg >> 1) & 0xf, (cfg >> 5) & 3, info & 0x1fff, (info >> 21) & 0xf,
                   attr, ctl, w9, w3);
}

/* The core's CLIC-mode CSRs: mtvec mode reads 11 (CLIC mode, hardwired),
 * mtvec and mtvt keep only [31:6] (64-byte aligned), mintthresh is 8 bits,
 * mie/mip are inactive (read 0), mintstatus is read-only (a write is an
 * illegal instruction, mcause 2, mil unchanged). */
/* expect: Tcsrs: mtvec=..0c3 mtvt=..0c0 thresh(w1ff)=ff mie=0 mip=0 mintstatus_write: mcause=2 mil=0 */
static volatile uint32_t ill_cause, ill_count;
__attribute__((interrupt("machine"), aligned(64))) void illegal_entry(void) {
    ill_cause = CSRR(mcause);
    ill_count++;
    CSRW(mepc, CSRR(mepc) + 4);
}
static void t_csrs(void) {
    uint32_t tvec = CSRR(mtvec), tvt = CSRR(MTVT);
    CSRW(mtvec, 0x10000c0u | 0x3f);
    uint32_t v1 = CSRR(mtvec);
    CSRW(MTVT, 0x10000c0u | 0x3f);
    uint32_t v2 = CSRR(MTVT);
    CSRW(MTVT, tvt);
    CSRW(MINTTHRESH, 0x1ff);
    uint32_t th = CSRR(MINTTHRESH);
    CSRW(MINTTHRESH, 0);
    uint32_t ie = CSRR(mie), ip = CSRR(mip);
    CSRW(mtvec, (uint32_t)illegal_entry);
    __asm__ volatile("csrw 0x346, %0" :: "r"(0x55000000u) : "memory");
    CSRW(mtvec, tvec);
    if (ill_count != 1) fail("Tcsrs: no trap on the mintstatus write");
    console_printf("Tcsrs: mtvec=..%03x mtvt=..%03x thresh(w1ff)=%x mie=%x mip=%x mintstatus_write: mcause=%x mil=%x\n",
                   v1 & 0xfff, v2 & 0xfff, th, ie, ip, ill_cause & 0xfff, mil());
}

/* Arbitration with nlbits=8 (clicintctl is all level): five sources pended
 * with MIE=0 are served by level, equal levels highest ID first. */
/* expect: Tarb8: 19(mil=90) 17(mil=90) 18(mil=60) 16(mil=30) 20(mil=10) */
static void t_arb8(void) {
    static const uint8_t lvl[] = {0x30, 0x90, 0x60, 0x90, 0x10};
    for (unsigned i = 0; i < 5; i++) src_b(16 + i, IRQ_TRIG_EDGE, lvl[i]);
    for (unsigned i = 0; i < 5; i++) pend(16 + i);
    open_window();
    console_printf("Tarb8: ");
    print_log(F_MIL);
    console_printf("\n");
}

/* Arbitration with nlbits=2: clicintctl[7:6] is the level (the low 6 bits read
 * as 1 in the level: 0x40 -> 7f), clicintctl[5:0] the priority within it.
 * Order: level, then priority, then (equal clicintctl: 17 and 20) highest ID. */
/* expect: Tarb2: 19(mil=bf) 20(mil=7f) 17(mil=7f) 18(mil=7f) 16(mil=7f) 21(mil=3f) */
static void t_arb2(void) {
    static const uint8_t ctl[] = {0x40, 0x50, 0x48, 0x80, 0x50, 0x00};
    CLIC_CFG = 2u << 1;
    for (unsigned i = 0; i < 6; i++) src_b(16 + i, IRQ_TRIG_EDGE, ctl[i]);
    for (unsigned i = 0; i < 6; i++) pend(16 + i);
    open_window();
    console_printf("Tarb2: ");
    print_log(F_MIL);
    console_printf("\n");
}

/* Priority does not preempt, level does (nlbits=2): handler 16 (level 7f,
 * priority 0) pends 17 (same level, top priority) and 18 (level ff) and
 * enables interrupts: 18 preempts, 17 runs only after 16 returned. */
/* expect: Tprio: 16(mil=7f) 18(mil=ff) /16(mil=7f) 17(mil=7f) */
static void t_prio(void) {
    CLIC_CFG = 2u << 1;
    src_b(16, IRQ_TRIG_EDGE, 0x40);
    src_b(17, IRQ_TRIG_EDGE, 0x7f);
    src_b(18, IRQ_TRIG_EDGE, 0xc0);
    act_pend[16] = (1ull << 17) | (1ull << 18);
    act_nest[16] = 1;
    pend(16);
    open_window();
    console_printf("Tprio: ");
    print_log(F_MIL);
    console_printf("\n");
}

/* mintthresh: only levels above the threshold are taken; the others stay
 * pending until the threshold drops. Level ff is blocked by th=ff only. */
/* expect: Tthresh: th=40: 19 18 ip16,17=1,1 | th=3f: 17 | th=0: 16 | th=ff: - ip20=1 | th=fe: 20 | read=fe */
static void t_thresh(void) {
    static const uint8_t lvl[] = {0x10, 0x40, 0x80, 0xc0};
    for (unsigned i = 0; i < 4; i++) src_b(16 + i, IRQ_TRIG_EDGE, lvl[i]);
    src_b(20, IRQ_TRIG_EDGE, 0xff);
    for (unsigned i = 0; i < 4; i++) pend(16 + i);
    console_printf("Tthresh:");
    CSRW(MINTTHRESH, 0x40);
    irq_global_enable();
    settle();
    console_printf(" th=40: ");
    print_log(0);
    console_printf(" ip16,17=%u,%u", CLIC_INTIP(16), CLIC_INTIP(17));
    static const uint8_t th[] = {0x3f, 0x00};
    for (unsigned k = 0; k < 2; k++) {
        nev = 0;
        CSRW(MINTTHRESH, th[k]);
        settle();
        console_printf(" | th=%x: ", th[k]);
        print_log(0);
    }
    nev = 0;
    CSRW(MINTTHRESH, 0xff);
    pend(20);
    settle();
    console_printf(" | th=ff: %s ip20=%u", nev ? "taken" : "-", CLIC_INTIP(20));
    nev = 0;
    CSRW(MINTTHRESH, 0xfe);
    settle();
    console_printf(" | th=fe: ");
    print_log(0);
    irq_global_disable();
    console_printf(" | read=%x\n", CSRR(MINTTHRESH));
}

/* Preemption, 5 levels deep: A=20 (level 20) pends B=22 (40) and enables
 * interrupts; B pends S=23 (40, same level), L=24 (30, lower) and C=25 (60);
 * C pends D=26 (80), D pends E=27 (a0). Each higher level preempts at once;
 * S and L do not preempt B, and run when B returns (S first: higher level),
 * still above A's level, before A resumes. mil = own level in each handler,
 * mcause.mpil = the interrupted level; mil is back to 0 in main. */
/* expect: Tnest: 20(mil=20,mpil=0) 22(mil=40,mpil=20) 25(mil=60,mpil=40) 26(mil=80,mpil=60) 27(mil=a0,mpil=80) /26(mil=80) /25(mil=60) /22(mil=40) 23(mil=40,mpil=20) 24(mil=30,mpil=20) /20(mil=20) main(mil=0) */
static void t_nest(void) {
    src_b(20, IRQ_TRIG_EDGE, 0x20);
    src_b(22, IRQ_TRIG_EDGE, 0x40);
    src_b(23, IRQ_TRIG_EDGE, 0x40);
    src_b(24, IRQ_TRIG_EDGE, 0x30);
    src_b(25, IRQ_TRIG_EDGE, 0x60);
    src_b(26, IRQ_TRIG_EDGE, 0x80);
    src_b(27, IRQ_TRIG_EDGE, 0xa0);
    act_pend[20] = 1ull << 22;
    act_pend[22] = (1ull << 23) | (1ull << 24) | (1ull << 25);
    act_pend[25] = 1ull << 26;
    act_pend[26] = 1ull << 27;
    act_nest[20] = act_nest[22] = act_nest[25] = act_nest[26] = 1;
    irq_global_enable();
    pend(20);
    settle();
    record(EV_MAIN, 0, mil(), 0, 0, mie_bit());
    irq_global_disable();
    console_printf("Tnest: ");
    print_log(F_MIL | F_MPIL);
    console_printf("\n");
}

/* What a handler's MIE is: the shv build enters handlers with MIE=0, so a
 * higher level pended by handler 16 (level 40) waits until it returns; the
 * nv build's trampoline re-enables interrupts before calling the handler,
 * so 17 (level 80) preempts at once. */
/* expect[clic]: Tmie: 16(mil=40,mie=0) /16(mil=40) 17(mil=80,mie=0) */
/* expect[clic-nv]: Tmie: 16(mil=40,mie=1) 17(mil=80,mie=1) /16(mil=40) */
static void t_mie(void) {
    src_b(16, IRQ_TRIG_EDGE, 0x40);
    src_b(17, IRQ_TRIG_EDGE, 0x80);
    act_pend[16] = 1ull << 17;
    pend(16);
    open_window();
    console_printf("Tmie: ");
    print_log(F_MIL | F_MIE);
    console_printf("\n");
}

/* Software pending of edge sources, and level sources ignoring it.
 *  edge 16: set/clear by writes while disabled; cleared before enabling, the
 *           handler never runs; pended while enabled it runs once, and the
 *           entry clears the bit.
 *  edge 19: pended while disabled (MIE=1): latched, taken once enabled.
 *  level 17 (input 0): writing 1 is ignored, never taken.
 *  level-low 18 (input 0, i.e. asserted): pending reads 1, writing 0 ignored. */
/* expect: Tpend: edge: ip=0 set=1 clr=0 runs=0 | pend: runs=1 ip=0 | latched: ip=1 runs=0 then runs=1 | level: set=0 runs=0 | levlow: ip=1 clr=1 */
static void t_pend(void) {
    src(16, IRQ_TRIG_EDGE, 0x80, SHV, 0);
    unsigned ip0 = CLIC_INTIP(16);
    CLIC_INTIP(16) = 1;
    unsigned ip1 = CLIC_INTIP(16);
    CLIC_INTIP(16) = 0;
    unsigned ip2 = CLIC_INTIP(16);
    CLIC_INTIE(16) = 1;
    clic_sync(16);
    open_window();
    console_printf("Tpend: edge: ip=%u set=%u clr=%u runs=%u", ip0, ip1, ip2, hits[16]);
    irq_global_enable();
    pend(16);
    settle();
    irq_global_disable();
    console_printf(" | pend: runs=%u ip=%u", hits[16], CLIC_INTIP(16));

    src(19, IRQ_TRIG_EDGE, 0x80, SHV, 0);
    irq_global_enable();
    pend(19);
    settle();
    unsigned ip19 = CLIC_INTIP(19), runs19 = hits[19];
    CLIC_INTIE(19) = 1;
    clic_sync(19);
    settle();
    irq_global_disable();
    console_printf(" | latched: ip=%u runs=%u then runs=%u", ip19, runs19, hits[19]);

    src_b(17, IRQ_TRIG_LEVEL, 0x80);
    CLIC_INTIP(17) = 1;
    unsigned ip17 = CLIC_INTIP(17);
    open_window();
    console_printf(" | level: set=%u runs=%u", ip17, hits[17]);

    src(18, IRQ_TRIG_LEVEL_LOW, 0x80, SHV, 0);
    unsigned ip18a = CLIC_INTIP(18);
    CLIC_INTIP(18) = 0;
    unsigned ip18b = CLIC_INTIP(18);
    console_printf(" | levlow: ip=%u clr=%u\n", ip18a, ip18b);
}

/* Taking an interrupt clears an edge source's pending bit (shv build: the
 * vectored entry does it in hardware; nv build: the trampoline's mnxti
 * claim), so the handler reads 0. A level source stays pending inside its
 * handler (level-low 17 on an idle input: asserted; the handler disables it,
 * else it would be taken again at once). */
/* expect: Tclaim: 16(ip=0) 17(ip=1) runs16=1 runs17=1 ip17=1 */
static void t_claim(void) {
    src_b(16, IRQ_TRIG_EDGE, 0x80);
    pend(16);
    open_window();
    src(17, IRQ_TRIG_LEVEL_LOW, 0x80, SHV, 0);
    act_self_disable[17] = 1;
    CLIC_INTIE(17) = 1;
    clic_sync(17);
    open_window();
    console_printf("Tclaim: ");
    print_log(F_IP);
    console_printf(" runs16=%u runs17=%u ip17=%u\n", hits[16], hits[17], CLIC_INTIP(17));
}

/* The shv build's own vectored entry (irq_vector_32 from the table at mtvt):
 * inside the handler mcause = interrupt | mpp=11 | mpie=1 | mpil=0 | id 32
 * (minhv is 0 again after the table fetch), MIE=0, the edge pending bit
 * already cleared. */
/* expect[clic]: Tvec: mcause=b8000020 mie=0 ip=0 mil=80 */
/* expect[clic-nv]: Tvec: skip (vectored build only) */
static volatile uint32_t vec_cause;
void irq_handler_32(void) {
    vec_cause = CSRR(mcause);
    record(EV_ENTER, 32, mil(), 0, CLIC_INTIP(32), mie_bit());
}
static void t_vec(void) {
#if SHV
    src(32, IRQ_TRIG_EDGE, 0x80, 1, 1);
    pend(32);
    open_window();
    if (nev != 1) fail("Tvec: handler 32 did not run once");
    console_printf("Tvec: mcause=%x mie=%u ip=%u mil=%x\n", vec_cause, evlog[0].mie, evlog[0].ip,
                   evlog[0].mil);
#else
    console_printf("Tvec: skip (vectored build only)\n");
#endif
}

/* A non-vectored interrupt (shv=0) goes to mtvec (here: a handler of this
 * test, replacing the build's entry). The entry itself does not clear the
 * edge pending bit (only a vectored entry or an mnxti claim does): the
 * handler reads 1 and clears it by software. mcause = interrupt | mpp=11 |
 * mpie=1 | mpil=0 | id 16, mil = 50. */
/* expect: Tnvtrap: mcause=b8000010 mil=50 ip=1 mie=0 runs=1 mil_after=0 ip_after=0 */
static volatile uint32_t nvt_cause, nvt_mil, nvt_ip, nvt_mie, nvt_runs;
__attribute__((interrupt("machine"), aligned(64))) void nvtrap_entry(void) {
    nvt_cause = CSRR(mcause);
    nvt_mil = mil();
    nvt_ip = CLIC_INTIP(16);
    nvt_mie = mie_bit();
    nvt_runs++;
    CLIC_INTIP(16) = 0;
    clic_sync(16);
}
static void t_nvtrap(void) {
    uint32_t old = CSRR(mtvec);
    CSRW(mtvec, (uint32_t)nvtrap_entry);
    src(16, IRQ_TRIG_EDGE, 0x50, 0, 1);
    pend(16);
    open_window();
    CSRW(mtvec, old);
    console_printf("Tnvtrap: mcause=%x mil=%x ip=%u mie=%u runs=%u mil_after=%x ip_after=%u\n",
                   nvt_cause, nvt_mil, nvt_ip, nvt_mie, nvt_runs, mil(), CLIC_INTIP(16));
}

/* mnxti, used directly with MIE=0 on two non-vectored sources 16 (level 40)
 * and 17 (level 80); mcause is written 0 first (mpil=0). Offsets are the
 * returned pointer minus mtvt (0 = nothing returned).
 *  line 1: a read without write (csrrsi ..,0 and csrr) returns the entry of 17
 *          with no side effect; csrrsi ..,8 claims 17 (pending cleared, mil
 *          80, mcause interrupt+id 17, mpil unchanged) and sets MIE; csrrci
 *          ..,8 then claims 16 (mil 40 relative to mpil=0) and clears MIE;
 *          with nothing pending it returns 0 and changes nothing.
 *  line 2: with 16 pending: 0 when its level is <= mcause.mpil or <= the
 *          threshold, or when the winner is a vectored source (18, level c0).
 *  line 3: two claims back to back; mret restores mil from mcause.mpil. */
/* expect: Tnxti: peek=44 csrr=44 ip17=1 mil=0 | claim=44 mie=1 mil=80 mcause=b0000011 ip=0,1 | claimci=40 mie=0 mil=40 mcause=b0000010 ip16=0 | empty=0 mil=40 mcause=b0000010 */
/* expect: Tnxti: mpil40=0 mpil3f=40 th40=0 th3f=40 shvwin=0 shvoff=40 */
/* expect: Tnxti: b2b=44,40 mil=40 ip=0,0 | after mret: mil=0 */
static uint32_t nxti_off(uint32_t p) { return p ? p - CSRR(MTVT) : 0; }
static uint32_t nxti_peek(void) {
    uint32_t v;
    __asm__ volatile("csrrsi %0, 0x345, 0" : "=r"(v) :: "memory");
    return nxti_off(v);
}
/* mret to the next instruction with mcause = cause (mil <- mpil, MIE <- mpie). */
static void mret_here(uint32_t cause) {
    __asm__ volatile(
        "csrw mcause, %0\n"
        "la t0, 1f\n"
        "csrw mepc, t0\n"
        "mret\n"
        "1:\n" :: "r"(cause) : "t0", "memory");
}
static void t_nxti(void) {
    uint32_t p, st, l, c, p2;
    src(16, IRQ_TRIG_EDGE, 0x40, 0, 1);
    src(17, IRQ_TRIG_EDGE, 0x80, 0, 1);
    CSRW(mcause, 0);
    pend(16);
    pend(17);
    uint32_t peek = nxti_peek();
    __asm__ volatile("csrr %0, 0x345" : "=r"(p) :: "memory");
    console_printf("Tnxti: peek=%x csrr=%x ip17=%u mil=%x", peek, nxti_off(p), CLIC_INTIP(17), mil());

    __asm__ volatile(
        "csrrsi %0, 0x345, 8\n"
        "csrr %1, mstatus\n"
        "csrr %2, 0x346\n"
        "csrr %3, mcause\n"
        "csrci mstatus, 8\n"
        : "=&r"(p), "=&r"(st), "=&r"(l), "=&r"(c) :: "memory");
    console_printf(" | claim=%x mie=%u mil=%x mcause=%x ip=%u,%u", nxti_off(p), (st >> 3) & 1, l >> 24,
                   c, CLIC_INTIP(17), CLIC_INTIP(16));
    __asm__ volatile(
        "csrrci %0, 0x345, 8\n"
        "csrr %1, mstatus\n"
        : "=&r"(p), "=&r"(st) :: "memory");
    console_printf(" | claimci=%x mie=%u mil=%x mcause=%x ip16=%u", nxti_off(p), (st >> 3) & 1, mil(),
                   CSRR(mcause), CLIC_INTIP(16));
    __asm__ volatile("csrrci %0, 0x345, 8" : "=r"(p) :: "memory");
    console_printf(" | empty=%x mil=%x mcause=%x\n", nxti_off(p), mil(), CSRR(mcause));

    pend(16);
    CSRW(mcause, 0x40u << 16);
    uint32_t a = nxti_peek();
    CSRW(mcause, 0x3fu << 16);
    uint32_t b = nxti_peek();
    CSRW(mcause, 0);
    CSRW(MINTTHRESH, 0x40);
    uint32_t t1 = nxti_peek();
    CSRW(MINTTHRESH, 0x3f);
    uint32_t t2 = nxti_peek();
    CSRW(MINTTHRESH, 0);
    src(18, IRQ_TRIG_EDGE, 0xc0, 1, 1);
    pend(18);
    uint32_t s1 = nxti_peek();
    CLIC_INTIE(18) = 0;
    clic_sync(18);
    uint32_t s2 = nxti_peek();
    console_printf("Tnxti: mpil40=%x mpil3f=%x th40=%x th3f=%x shvwin=%x shvoff=%x\n", a, b, t1, t2, s1, s2);

    pend(17);
    __asm__ volatile(
        "csrrci %0, 0x345, 8\n"
        "csrrci %1, 0x345, 8\n"
        : "=&r"(p), "=&r"(p2) :: "memory");
    uint32_t o1 = nxti_off(p), o2 = nxti_off(p2);
    console_printf("Tnxti: b2b=%x,%x mil=%x ip=%u,%u", o1, o2, mil(), CLIC_INTIP(17), CLIC_INTIP(16));
    mret_here(0);
    console_printf(" | after mret: mil=%x\n", mil());
}

/* mret (from main, to the next instruction): mil <- mcause.mpil, MIE <-
 * mcause.mpie (= mstatus.MPIE, the same bit: written through one, read
 * through the other), MPIE <- 1. With mcause.minhv=1, mret treats mepc as the
 * address of a pointer-table entry and jumps to the address stored there. */
/* expect: Tmret: mpil=33: mil=33 mie=0 mpie=1 | mpil=0,mpie=1: mil=0 mie=1 | alias: mstatus->mcause=1,0 mcause->mstatus=1,0 | minhv: jump=ok minhv_after=0 mil=0 */
static void t_mret(void) {
    mret_here(0x33u << 16);
    uint32_t l = mil(), st = CSRR(mstatus);
    console_printf("Tmret: mpil=33: mil=%x mie=%u mpie=%u", l, (st >> 3) & 1, (st >> 7) & 1);
    mret_here(1u << 27);
    st = CSRR(mstatus);
    l = mil();
    irq_global_disable();
    console_printf(" | mpil=0,mpie=1: mil=%x mie=%u", l, (st >> 3) & 1);

    __asm__ volatile("csrs mstatus, %0" :: "r"(MSTATUS_MPIE));
    unsigned a1 = CSRR(mcause) >> 27 & 1;
    __asm__ volatile("csrc mstatus, %0" :: "r"(MSTATUS_MPIE));
    unsigned a2 = CSRR(mcause) >> 27 & 1;
    CSRW(mcause, 1u << 27);
    unsigned a3 = CSRR(mstatus) >> 7 & 1;
    CSRW(mcause, 0);
    unsigned a4 = CSRR(mstatus) >> 7 & 1;
    console_printf(" | alias: mstatus->mcause=%u,%u mcause->mstatus=%u,%u", a1, a2, a3, a4);

    uint32_t r;
    __asm__ volatile(
        "li t1, 0x40000000\n"          /* minhv=1, mpie=0, mpil=0 */
        "csrw mcause, t1\n"
        "la t0, 2f\n"
        "csrw mepc, t0\n"
        "li %0, 0\n"
        "mret\n"
        ".balign 4\n"
        "2: .word 3f\n"
        "li %0, 2\n"                   /* the entry executed as an instruction and fell through */
        "j 4f\n"
        "3: li %0, 1\n"
        "4:\n"
        : "=&r"(r) :: "t0", "t1", "memory");
    console_printf(" | minhv: jump=%s minhv_after=%u mil=%x\n", r == 1 ? "ok" : r == 2 ? "fellthrough" : "?",
                   CSRR(mcause) >> 30 & 1, mil());
}

/* An exception inside a handler (ecall in handler 16, level 50) is taken
 * with mil unchanged (50), mcause = exception 11 with mpil = 50 and mpie =
 * the handler's MIE; its mret returns after the ecall with mil 50 and the
 * handler's MIE. The handler saves mepc/mcause around the ecall (the trap
 * overwrites them); main is back at level 0. */
/* expect[clic]: Tecall: exc: mcause=3050000b mil=50 | handler after: mil=50 mie=0 | main: mil=0 runs=1 */
/* expect[clic-nv]: Tecall: exc: mcause=3850000b mil=50 | handler after: mil=50 mie=1 | main: mil=0 runs=1 */
static volatile uint32_t ecall_cause, ecall_mil, after_mil, after_mie, ecall_count;
__attribute__((interrupt("machine"), aligned(64))) void ecall_entry(void) {
    ecall_cause = CSRR(mcause);
    ecall_mil = mil();
    ecall_count++;
    CSRW(mepc, CSRR(mepc) + 4);
}
static void do_ecall(void) {
    uint32_t tvec = CSRR(mtvec), epc = CSRR(mepc), cause = CSRR(mcause);
    CSRW(mtvec, (uint32_t)ecall_entry);
    __asm__ volatile("ecall" ::: "memory");
    after_mil = mil();
    after_mie = mie_bit();
    CSRW(mtvec, tvec);
    CSRW(mepc, epc);
    CSRW(mcause, cause);
}
static void t_ecall(void) {
    src_b(16, IRQ_TRIG_EDGE, 0x50);
    act_ecall[16] = 1;
    pend(16);
    open_window();
    if (ecall_count != 1) fail("Tecall: ecall trap not taken once");
    console_printf("Tecall: exc: mcause=%x mil=%x | handler after: mil=%x mie=%u | main: mil=%x runs=%u\n",
                   ecall_cause, ecall_mil, after_mil, after_mie, mil(), hits[16]);
}

/* Generator-driven edges (real hardware input changes):
 *  gen:  line 0 = source 8, rising edge, SINGLE pulse of 400 cycles: the
 *        handler runs once, during the pulse (line still high), pending
 *        already clear in it.
 *  fall: line 1 = source 9, falling edge: the handler runs once, after the
 *        pulse (line low again).
 *  levlow: line 2 = source 10, level-low: pending while the idle line is
 *        low, not while the pulse is high (enabled only then); the handler
 *        runs once the line falls, sees its pending bit still set (level)
 *        and disables itself.
 *  levhigh: line 3 = source 11, level (high), disabled: pending follows the
 *        line: 0 idle, 1 during the pulse, 0 after. */
/* expect: Tgen: rise: runs=1 in_pulse=1 ip=0 | fall: runs=1 in_pulse=0 ip=0 | levlow: idle=1 pulse=0 runs_in_pulse=0 runs=1 ip=1 | levhigh: idle=0 pulse=1 after=0 */
static void pulse(unsigned line, uint32_t high) {
    struct gen_pattern p = {.mode = GEN_SINGLE, .delay = 20, .high = high, .count = 1};
    gen_config(line, &p);
    gen_start(1u << line);
}
static void wait_gen_idle(unsigned line) {
    for (unsigned i = 0; i < 100000 && (gen_running() >> line & 1); i++)
        ;
    if (gen_running() >> line & 1) fail("generator line still running");
    settle();
}
static void t_gen(void) {
    console_printf("Tgen:");
    /* rise */
    src_b(GEN_SRC(0), IRQ_TRIG_EDGE, 0x80);
    act_gen_line[GEN_SRC(0)] = 1;
    irq_global_enable();
    pulse(0, 400);
    wait_gen_idle(0);
    irq_global_disable();
    console_printf(" rise: runs=%u in_pulse=%u ip=%u", hits[GEN_SRC(0)], gen_running_at_entry,
                   nev ? evlog[0].ip : 9);
    /* fall */
    nev = 0;
    gen_running_at_entry = 9;
    src_b(GEN_SRC(1), IRQ_TRIG_EDGE_FALLING, 0x80);
    act_gen_line[GEN_SRC(1)] = 2;
    irq_global_enable();
    pulse(1, 400);
    wait_gen_idle(1);
    irq_global_disable();
    console_printf(" | fall: runs=%u in_pulse=%u ip=%u", hits[GEN_SRC(1)], gen_running_at_entry,
                   nev ? evlog[0].ip : 9);
    /* level-low */
    nev = 0;
    unsigned s = GEN_SRC(2);
    src(s, IRQ_TRIG_LEVEL_LOW, 0x80, SHV, 0);
    act_self_disable[s] = 1;
    unsigned idle = CLIC_INTIP(s), in_pulse = 1, runs_in_pulse = 0;
    irq_global_enable();
    pulse(2, 2000);
    for (unsigned i = 0; i < 1000 && in_pulse; i++)
        in_pulse = CLIC_INTIP(s);
    CLIC_INTIE(s) = 1;
    clic_sync(s);
    for (;;) {                       /* hits first: a run seen before a `running` read of 1 was in the pulse */
        unsigned h = hits[s];
        if (!(gen_running() >> 2 & 1)) break;
        if (h) runs_in_pulse = 1;
    }
    settle();
    irq_global_disable();
    console_printf(" | levlow: idle=%u pulse=%u runs_in_pulse=%u runs=%u ip=%u", idle, in_pulse,
                   runs_in_pulse, hits[s], nev ? evlog[0].ip : 9);
    /* level-high, disabled: watch the pending bit */
    s = GEN_SRC(3);
    src(s, IRQ_TRIG_LEVEL, 0x80, SHV, 0);
    idle = CLIC_INTIP(s);
    unsigned seen = 0;
    pulse(3, 400);
    while (gen_running() >> 3 & 1)
        if (CLIC_INTIP(s)) seen = 1;
    settle();
    console_printf(" | levhigh: idle=%u pulse=%u after=%u\n", idle, seen, CLIC_INTIP(s));
}

/* Level 0 is never taken (it is the level of non-interrupt code, and a
 * source needs a level above mil): clicintctl 0 with nlbits 8 stays pending
 * with MIE=1, and mnxti does not return it. With nlbits 0 every source is
 * at level ff (all clicintctl bits are priority). */
/* expect: Tlevels: ctl0: runs=0 ip=1 nxti=0 | nlbits0: 16(mil=ff) */
static void t_levels(void) {
    src_b(16, IRQ_TRIG_EDGE, 0x00);
    pend(16);
    open_window();
    unsigned runs = hits[16], ip = CLIC_INTIP(16);
    src(16, IRQ_TRIG_EDGE, 0x00, 0, 1);
    pend(16);
    CSRW(mcause, 0);
    uint32_t p;
    __asm__ volatile("csrrsi %0, 0x345, 0" : "=r"(p) :: "memory");
    console_printf("Tlevels: ctl0: runs=%u ip=%u nxti=%x", runs, ip, p);
    CLIC_INTIE(16) = 0;
    CLIC_CFG = 0;
    src_b(16, IRQ_TRIG_EDGE, 0x00);
    pend(16);
    open_window();
    console_printf(" | nlbits0: ");
    print_log(F_MIL);
    console_printf("\n");
}

/* An edge source pended again (by software) inside its own handler, even
 * with MIE=1 there, is not lost and does not preempt (same level): the
 * handler runs a second time after it returns. */
/* expect: Tretrig: 16(ip=0) /16 16(ip=0) runs=2 */
static void retrig_hook(unsigned id, unsigned phase) {
    if (phase == 0 && hits[id] >= 2) act_pend[id] = 0;
}
static void t_retrig(void) {
    src_b(16, IRQ_TRIG_EDGE, 0x40);
    act_pend[16] = 1ull << 16;
    act_nest[16] = 1;
    hook = retrig_hook;
    pend(16);
    open_window();
    console_printf("Tretrig: ");
    print_log(F_IP);
    console_printf(" runs=%u\n", hits[16]);
}

/* mscratchcswl (0x349) swaps with mscratch only when the level crosses zero
 * ((mcause.mpil == 0) != (mil == 0)): not in main (mil 0, mpil 0), yes in
 * handler 16 (level 40, interrupted level 0), not in 17 (level 80) nested in
 * 16. csrrw without swap returns the written value and keeps mscratch. */
/* expect: Tcswl: main: got=cccc | 16: got=1234 | 17 (nested): got=bbbb | mscratch=aaaa */
static volatile uint32_t cswl_got[2];
static uint32_t cswl(uint32_t v) {
    uint32_t r;
    __asm__ volatile("csrrw %0, 0x349, %1" : "=r"(r) : "r"(v) : "memory");
    return r;
}
static void cswl_hook(unsigned id, unsigned phase) {
    if (phase == 0) cswl_got[id == 17] = cswl(id == 17 ? 0xbbbb : 0xaaaa);
}
static void t_cswl(void) {
    CSRW(mscratch, 0x1234);
    CSRW(mcause, 0);
    uint32_t got_main = cswl(0xcccc);
    src_b(16, IRQ_TRIG_EDGE, 0x40);
    src_b(17, IRQ_TRIG_EDGE, 0x80);
    act_pend[16] = 1ull << 17;
    act_nest[16] = 1;
    hook = cswl_hook;
    pend(16);
    open_window();
    if (hits[16] != 1 || hits[17] != 1) fail("Tcswl: handlers did not run once each");
    console_printf("Tcswl: main: got=%x | 16: got=%x | 17 (nested): got=%x | mscratch=%x\n", got_main,
                   cswl_got[0], cswl_got[1], CSRR(mscratch));
    CSRW(mscratch, 0);
}

/* Precise interrupts under load: generator lines 0 (source 8, level 40, 40
 * pulses) and 1 (source 9, level 80, 25 pulses), periodic with random gaps,
 * interrupt a loop of multiplies, divisions, loads, stores and branches (in
 * the nv build 9 also preempts 8's handler). Every pulse is served once, and
 * the loop computes what it computes with interrupts off. */
/* expect: Tstress: runs8=40 runs9=25 work=ok */
static uint32_t __attribute__((noinline)) work(uint32_t x, unsigned n) {
    uint32_t a = x, b = x ^ 0x5a5a5a5au, c = x * 3u, d = 7, e = 11, f = 13, g = 17, h = 19;
    uint32_t buf[8];
    for (unsigned i = 0; i < 8; i++)
        buf[i] = x + i;
    for (unsigned i = 0; i < n; i++) {
        a = a * 1103515245u + 12345u;
        b ^= a >> 7;
        c += b / ((a & 0xffu) | 1u);
        d = (d << 3) | (c >> 29);
        buf[i & 7] += d ^ a;
        e += buf[(i + 3) & 7];
        if (e & 1) f += c; else g ^= b;
        h = h * 7u + (f - g) % 13u;
    }
    return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
}
static void t_stress(void) {
    src_b(GEN_SRC(0), IRQ_TRIG_EDGE, 0x40);
    src_b(GEN_SRC(1), IRQ_TRIG_EDGE, 0x80);
    act_quiet[GEN_SRC(0)] = act_quiet[GEN_SRC(1)] = 1;
    struct gen_pattern p0 = {.mode = GEN_PERIODIC, .delay = 100, .high = 4, .low = 1500, .count = 40,
                             .jitter = 0x1ff, .seed = 1};
    struct gen_pattern p1 = {.mode = GEN_PERIODIC, .delay = 377, .high = 4, .low = 2300, .count = 25,
                             .jitter = 0x3ff, .seed = 7};
    gen_config(0, &p0);
    gen_config(1, &p1);
    uint32_t x = 0x1234567u;
    unsigned chunks = 0;
    irq_global_enable();
    gen_start(3);
    while (gen_running() & 3) {
        x = work(x, 16);
        chunks++;
    }
    settle();
    irq_global_disable();
    uint32_t y = 0x1234567u;
    for (unsigned i = 0; i < chunks; i++)
        y = work(y, 16);
    console_printf("Tstress: runs8=%u runs9=%u work=%s\n", hits[GEN_SRC(0)], hits[GEN_SRC(1)],
                   x == y ? "ok" : "CORRUPTED");
}

/* ========================================================== runner */

static const struct {
    const char *name;      /* as printed by the test */
    void (*run)(void);
} tests[] = {
    {"Tregs", t_regs},
    {"Tcsrs", t_csrs},
    {"Tarb8", t_arb8},
    {"Tarb2", t_arb2},
    {"Tprio", t_prio},
    {"Tthresh", t_thresh},
    {"Tnest", t_nest},
    {"Tmie", t_mie},
    {"Tpend", t_pend},
    {"Tclaim", t_claim},
    {"Tvec", t_vec},
    {"Tnvtrap", t_nvtrap},
    {"Tnxti", t_nxti},
    {"Tmret", t_mret},
    {"Tecall", t_ecall},
    {"Tgen", t_gen},
    {"Tlevels", t_levels},
    {"Tretrig", t_retrig},
    {"Tcswl", t_cswl},
    {"Tstress", t_stress},
};

int main(void) {
    irq_init();
    console_printf("clictest: %s build\n", SHV ? "shv (vectored)" : "non-vectored (mnxti trampoline)");
    for (unsigned i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        reset();
        console_printf("clictest: run %s\n", tests[i].name);   /* names the test a crash happens in */
        tests[i].run();
    }
    reset();
    console_printf("clictest: done, %u tests\n", (unsigned)(sizeof tests / sizeof tests[0]));
    return 0;
}
