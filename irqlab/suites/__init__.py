"""The benchmark suites: each builds its firmware, runs every row (in simulation,
or on a board), and writes the results (JSON, Markdown, plots).
    latency        interrupt latency and throughput (`irqlab bench`)
    latency_board  the same on a board over its serial link
    ctxsw          FreeRTOS context switches (`--suite ctxsw`)
    digits         the background workload alone (`--suite digits`)
    levers         each pipeline lever alone on a row (`make levers`)"""
