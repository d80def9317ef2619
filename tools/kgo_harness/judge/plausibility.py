"""The physical floor of a measured time, checked in the judge (bytes over bandwidth, FLOPs over peak, from the
ceilings kgo sends; the judge's clock is wallclock.py's). An impossible time is never recorded as performance:
REWARD_HACK."""

AUDIT_CEILING_PCT = 95.0  # above this share of a ceiling a human should look
AUDIT_SPEEDUP = 3.0       # above this speedup over the better of eager and compile, too


def floor_check(size, ceilings):
    """REWARD_HACK below the floor max(bytes / bandwidth, FLOPs / peak), each term from a registered, cited
    ceiling; a FLOPs count with no registered peak is said in `floor_note`; audit flags near a ceiling."""
    if not ceilings:
        return
    med = size["median_us"]
    bw, peak = ceilings.get("bytes_per_s"), ceilings.get("flops_per_s")
    source = ceilings.get("source") or "kgo's ceilings"
    floors = []
    if bw and size.get("bytes"):
        floors.append((size["bytes"] / bw * 1e6, f"{size['bytes']:.0f} B / {bw / 1e12:.3g} TB/s", source))
    if peak and size.get("flops"):
        floors.append((size["flops"] / peak * 1e6, f"{size['flops']:.0f} FLOP / {peak / 1e12:.3g} TFLOP/s",
                       ceilings.get("flops_source") or source))
    elif size.get("flops") and not peak:
        size["floor_note"] = ceilings.get("flops_note") or "no compute peak is registered: the floor has no FLOPs term"
    if not floors:
        return
    floor, text, cited = max(floors)
    size["floor_us"] = floor
    if med < floor:
        size["reward_hack"] = (f"{med:.2f} us is below the physical floor {text} = {floor:.2f} us ({cited}); "
                               "no kernel can be that fast, so the time is not recorded")
        return
    audit_bw = ceilings.get("audit_bytes_per_s") or bw
    if audit_bw and size.get("bytes"):
        pct = 100.0 * size["bytes"] / audit_bw * 1e6 / med
        if pct > AUDIT_CEILING_PCT:
            size["audit"].append(f"{pct:.0f}% of the bandwidth ceiling {audit_bw / 1e12:.3g} TB/s "
                                 f"({ceilings.get('audit_source') or source}): check the measurement")
    best = size.get("speedup_vs_best")
    if best and best > AUDIT_SPEEDUP:
        size["audit"].append(f"{best:.1f}x the better of eager and torch.compile: check the measurement")
