"""Compare the H100 Nsight Compute counters (benchmarks/gpu/results/h100/ncu.csv) with
llverify's predictions (bank_cases.json): prints matches and differences, writes table.json.

Run: ``python benchmarks/gpu/analyze_bank_results.py``.
"""

import csv
import io
import json

lines = open("benchmarks/gpu/results/h100/ncu.csv").read().splitlines()
start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
kern = {}
order = []
for r in rows:
    if "through_shared" not in r["Kernel Name"] and "triton_default" not in r["Kernel Name"]:
        continue
    k = r["ID"]
    if k not in kern:
        kern[k] = {"name": r["Kernel Name"]}
        order.append(k)
    kern[k][r["Metric Name"]] = float(r["Metric Value"].replace(",", "") or 0)
launches = json.load(open("benchmarks/gpu/results/h100/launches.json"))["launches"]
cases = json.load(open("benchmarks/gpu/results/bank_cases.json"))
times = {
    (c, v): t for c, v, t in json.load(open("benchmarks/gpu/results/h100/times.json"))["times"]
}
assert len(order) == len(launches), (len(order), len(launches))
ok = bad = 0
table = []
for k, (case, variant, good) in zip(order, launches):
    m = kern[k]
    st = m["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
    ld = m["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
    row = {
        "case": case,
        "name": cases[case]["name"],
        "bits": cases[case]["bits"],
        "variant": variant,
        "st": int(st),
        "ld": int(ld),
        "st_conf": int(m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]),
        "ld_conf": int(m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]),
        "roundtrip": good,
        "us": times.get((case, variant)),
    }
    if variant in cases[case]["variants"]:
        p = cases[case]["variants"][variant]["predicted"]
        row["pred_st"], row["pred_ld"] = p["st_wavefronts"], p["ld_wavefronts"]
        if (row["pred_st"], row["pred_ld"]) == (row["st"], row["ld"]):
            ok += 1
        else:
            bad += 1
    table.append(row)
print("explicit variants: prediction == measured", ok, "differs", bad)
for r in table:
    if "pred_st" in r and (r["pred_st"], r["pred_ld"]) != (r["st"], r["ld"]):
        print("DIFF", r)
json.dump(table, open("benchmarks/gpu/results/h100/table.json", "w"), indent=1)
