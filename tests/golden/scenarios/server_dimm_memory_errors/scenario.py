"""A server whose memory controllers count errors on one DIMM.

The H100 server of scenario_lib's h100_server() (without NVML's facts: the tree has no running
driver to ask), with Linux EDAC's sysfs of two Skylake memory controllers: mc0's DIMM in channel 1
slot 0 (CPU_SrcID#0_MC#0_Chan#1_DIMM#0) has corrected 214 errors and failed to correct 1 since
boot; every other DIMM and mc1 are clean. The guide's RAM advice: a DIMM that needs its errors
corrected is failing, whatever the GPU does.

Expected: hardware.host_memory_errors, critical for the uncorrected error, naming the DIMM by its
label and sysfs place, with the controller and the DIMM as evidence."""

EXIT = 1


def build(t):
    t.h100_server()
    edac = "/sys/devices/system/edac/mc"
    for mc, ce, ue in (("mc0", 214, 1), ("mc1", 0, 0)):
        t.text(f"{edac}/{mc}/mc_name", f"Skylake Socket#0 IMC#{mc[-1]}\n")
        t.text(f"{edac}/{mc}/ce_count", f"{ce}\n")
        t.text(f"{edac}/{mc}/ue_count", f"{ue}\n")
        t.text(f"{edac}/{mc}/size_mb", "262144\n")
        for dimm, chan in (("dimm0", 0), ("dimm2", 1)):
            bad = mc == "mc0" and dimm == "dimm2"
            t.text(f"{edac}/{mc}/{dimm}/dimm_label", f"CPU_SrcID#0_MC#{mc[-1]}_Chan#{chan}_DIMM#0\n")
            t.text(f"{edac}/{mc}/{dimm}/dimm_ce_count", f"{214 if bad else 0}\n")
            t.text(f"{edac}/{mc}/{dimm}/dimm_ue_count", f"{1 if bad else 0}\n")
