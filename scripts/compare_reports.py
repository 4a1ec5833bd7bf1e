"""Two reports of the same server side by side: wall and server time, then every figure of
every cell, with the relative difference. Exits 1 when a status differs or a figure of a
valid cell moves by more than the tolerance (default 2 %). A decode cell's TTFT median is
over its C first requests only (one per stream), a few milliseconds on a fast simulator:
it may also differ by up to --ttft-floor-ms (default 3 ms), the spread two runs of the very
same procedure show at 10x speed.

    python3 scripts/compare_reports.py BEFORE.json AFTER.json [--tolerance 0.02] [--ttft-floor-ms 3]
"""
import argparse
import json
import sys

PREFILL = ["prompt_tok_s", "ttft_ms"]
DECODE = ["total_tok_s", "per_request_tok_s", "tbt_ms_median", "ttft_ms_median"]


def cells(report, phase):
    return {(c["context_tokens"], c.get("concurrency", 1)): c for c in report[phase]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--tolerance", type=float, default=0.02)
    parser.add_argument("--ttft-floor-ms", type=float, default=3.0)
    args = parser.parse_args()
    before, after = (json.load(open(p)) for p in (args.before, args.after))
    problems = []
    for name, r in (("before", before), ("after", after)):
        p = r["parameters"]
        cost = r.get("cost") or {}
        print(f"{name}: prefill_mode {p.get('prefill_mode', 'repeats')}, window_rule "
              f"{p.get('window_rule', 'fixed')}: {cost.get('wall_s', 0):.1f} s wall, "
              f"{cost.get('gpu_s_estimate', 0):.1f} s of server time, "
              f"{cost.get('cells_run')} cells run, {cost.get('cells_skipped')} skipped")
    wall = [(r.get("cost") or {}).get("wall_s") for r in (before, after)]
    if all(wall):
        print(f"wall time after / before: {wall[1] / wall[0]:.3f}")
    print()
    print("| phase | context | streams | status before / after | figure | before | after | diff |")
    print("|---|---|---|---|---|---|---|---|")
    for phase, figures in (("prefill", PREFILL), ("decode", DECODE)):
        a, b = cells(before, phase), cells(after, phase)
        for key in sorted(set(a) | set(b)):
            x, y = a.get(key), b.get(key)
            if x is None or y is None:
                problems.append(f"{phase} {key}: only in one report")
                continue
            status = f"{x['status']} / {y['status']}"
            if x["status"] != y["status"]:
                problems.append(f"{phase} {key}: status {status}")
            if x["status"] == "over_capacity":
                continue
            for figure in figures:
                u, v = x.get(figure), y.get(figure)
                diff = "" if not (u and v) else f"{(v - u) / u * 100:+.2f} %"
                print(f"| {phase} | {key[0]} | {key[1]} | {status} | {figure} | "
                      f"{'—' if u is None else f'{u:.2f}'} | {'—' if v is None else f'{v:.2f}'} | {diff} |")
                floor = args.ttft_floor_ms if figure == "ttft_ms_median" else 0.0
                if (x["status"] == "valid" and u and v and abs(v - u) / u > args.tolerance
                        and abs(v - u) > floor):
                    problems.append(f"{phase} {key} {figure}: {u:.2f} then {v:.2f}")
            if y.get("window_half_width_pct") is not None:
                print(f"| {phase} | {key[0]} | {key[1]} | | measured_s, half-width % | "
                      f"{x.get('measured_s', 0):.2f} | {y.get('measured_s', 0):.2f}, "
                      f"±{y['window_half_width_pct']:.2f} | |")
    print()
    if problems:
        print("DISAGREE:")
        for p in problems:
            print(f"  - {p}")
        sys.exit(1)
    print(f"agree: identical statuses, every valid figure within {args.tolerance:.0%} "
          f"(decode TTFT medians within {args.tolerance:.0%} or {args.ttft_floor_ms} ms)")


if __name__ == "__main__":
    main()
