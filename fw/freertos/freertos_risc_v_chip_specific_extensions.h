/* What FreeRTOS's RISC-V port (portASM.S) needs to know about this SoC's
 * core: the machine timer is memory-mapped (soc/mtimer.py, the CLINT
 * layout) and the tick; there are no registers beyond the base ISA to save
 * and no SiFive CLINT software interrupt (yields are ecalls). */
#ifndef IRQLAB_FREERTOS_CHIP_EXTENSIONS_H
#define IRQLAB_FREERTOS_CHIP_EXTENSIONS_H

#define portasmHAS_MTIME 1
#define portasmHAS_SIFIVE_CLINT 0
#define portasmADDITIONAL_CONTEXT_SIZE 0

.macro portasmSAVE_ADDITIONAL_REGISTERS
.endm

.macro portasmRESTORE_ADDITIONAL_REGISTERS
.endm

#endif
