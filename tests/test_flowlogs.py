"""The FPGA tools' log parsers (irqlab/flows/logs.py) on canned text shaped
like nextpnr-xilinx's and Vivado's output."""

from irqlab.flows import logs

NEXTPNR_XILINX = """\
Info: Device utilisation:
Info: 	          SLICE_LUTX:  9876/ 41600    23%
Info: 	           SLICE_FFX:  6543/ 41600    15%
Info: 	              CARRY4:   700/  8150     8%
Info: 	   RAMB18E1_RAMB18E1:    20/   100    20%
Info: 	   RAMB36E1_RAMB36E1:    12/    50    24%
Info: 	     DSP48E1_DSP48E1:     4/    90     4%
Info: Max frequency for clock 'clk100_0__BUFG': 300.12 MHz (PASS at 100.00 MHz)
Info: Max frequency for clock             'sys_clk': 71.50 MHz (FAIL at 100.00 MHz)
Info: Device utilisation:
Info: 	          SLICE_LUTX:  9900/ 41600    23%
Info: Max frequency for clock             'sys_clk': 104.25 MHz (PASS at 100.00 MHz)
"""

VIVADO_LOG = """\
Command: route_design
------------------------------------------------------------------------------------------------
| Design Timing Summary
| ---------------------
------------------------------------------------------------------------------------------------

    WNS(ns)      TNS(ns)  TNS Failing Endpoints  TNS Total Endpoints      WHS(ns)      THS(ns)
    -------      -------  ---------------------  -------------------      -------      -------
      0.412        0.000                      0                18000        0.051        0.000


All user specified timing constraints are met.


------------------------------------------------------------------------------------------------
| Clock Summary
| -------------
------------------------------------------------------------------------------------------------

Clock         Waveform(ns)       Period(ns)      Frequency(MHz)
-----         ------------       ----------      --------------
clk100        {0.000 5.000}      10.000          100.000
  pll_fb      {0.000 5.000}      10.000          100.000
  sys_clk     {0.000 5.000}      10.000          100.000


------------------------------------------------------------------------------------------------
| Intra Clock Table
| -----------------
------------------------------------------------------------------------------------------------

Clock             WNS(ns)      TNS(ns)  TNS Failing Endpoints  TNS Total Endpoints      WHS(ns)
-----             -------      -------  ---------------------  -------------------      -------
clk100                                                                                         
  pll_fb                                                                                       
  sys_clk           0.412        0.000                      0                18000        0.051


------------------------------------------------------------------------------------------------
| Inter Clock Table
| -----------------
------------------------------------------------------------------------------------------------
"""

VIVADO_UTIL = """\
+----------------------------+------+-------+------------+-----------+-------+
|          Site Type         | Used | Fixed | Prohibited | Available | Util% |
+----------------------------+------+-------+------------+-----------+-------+
| Slice LUTs                 | 8123 |     0 |          0 |     20800 | 39.05 |
|   LUT as Logic             | 7800 |     0 |          0 |     20800 | 37.50 |
| Slice Registers            | 6100 |     0 |          0 |     41600 | 14.66 |
+----------------------------+------+-------+------------+-----------+-------+
| Block RAM Tile             |   23 |     0 |          0 |        50 | 46.00 |
|   RAMB36/FIFO*             |   12 |     0 |          0 |        50 | 24.00 |
|     RAMB36E1 only          |   12 |       |            |           |       |
|   RAMB18                   |   22 |     0 |          0 |       100 | 22.00 |
| DSPs                       |    4 |     0 |          0 |        90 |  4.44 |
| Bonded IOB                 |   30 |     0 |          0 |       210 | 14.29 |
"""


def test_nextpnr_xilinx_last_report_wins():
    util, clocks = logs.parse_nextpnr(NEXTPNR_XILINX)
    assert clocks["sys_clk"] == {"fmax_mhz": 104.25, "target_mhz": 100.0, "met": True}
    assert clocks["clk100_0__BUFG"]["met"]
    res = logs.nextpnr_xilinx_resources(util)
    assert res == {"luts": 9900, "flip_flops": 6543, "bram36": 12, "bram18": 20, "dsp": 4}
    assert util["SLICE_LUTX"]["available"] == 41600


def test_nextpnr_timing_failure():
    _, clocks = logs.parse_nextpnr(NEXTPNR_XILINX.split("Info: Device utilisation:\nInfo: \t          SLICE_LUTX:  9900")[0])
    assert clocks["sys_clk"] == {"fmax_mhz": 71.5, "target_mhz": 100.0, "met": False}


def test_vivado_timing_met():
    clocks, met = logs.parse_vivado_timing(VIVADO_LOG)
    assert met
    assert set(clocks) == {"sys_clk"}          # clk100 and pll_fb have no setup paths
    c = clocks["sys_clk"]
    assert c["met"] and c["target_mhz"] == 100.0 and c["wns_ns"] == 0.412
    assert abs(c["fmax_mhz"] - 1000 / (10 - 0.412)) < 0.01


def test_vivado_timing_missed():
    text = VIVADO_LOG.replace("0.412", "-1.250").replace("All user specified timing constraints are met.",
                                                       "Timing constraints are not met.")
    clocks, met = logs.parse_vivado_timing(text)
    assert not met
    assert not clocks["sys_clk"]["met"] and abs(clocks["sys_clk"]["fmax_mhz"] - 1000 / 11.25) < 0.01


def test_vivado_utilization():
    util = logs.parse_vivado_utilization(VIVADO_UTIL)
    assert util["Slice LUTs"] == {"used": 8123, "available": 20800}
    assert "RAMB36E1 only" not in util
    assert logs.vivado_resources(util) == {"luts": 8123, "flip_flops": 6100, "bram36": 12, "bram18": 22, "dsp": 4}
    # Vivado versions before the Prohibited column
    old = VIVADO_UTIL.replace("|          0 |", "|")
    assert logs.parse_vivado_utilization(old)["DSPs"] == {"used": 4, "available": 90}


def test_ecp5_resources():
    util, clocks = logs.parse_nextpnr("Info: \t   TRELLIS_COMB: 19506/83640    23%\n"
                                      "Info: \t     TRELLIS_FF:  7388/83640     8%\n"
                                      "Info: Max frequency for clock '$glbnet$sys_clk': 45.40 MHz (PASS at 25.00 MHz)\n")
    assert logs.ecp5_resources(util)["luts"] == 19506 and clocks["$glbnet$sys_clk"]["met"]
