#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/report.py RESULTS.tsv: the tables of bench/run with ratios, as
Markdown on stdout; RESULTS.json next to it (the records and the tables);
RESULTS.png, a chart, when matplotlib is there (apt install
python3-matplotlib).  Where a record appears more than once (runs with
--append), the last one counts."""

import json
import os
import platform
import sys

STACKS = ["tcp", "ktls", "ngtcp2", "aioquic", "quic"]
NAMES = {"tcp": "TCP", "ktls": "kTLS", "ngtcp2": "ngtcp2", "aioquic": "aioquic",
         "quic": "ours (quic.ko)"}


def load(path):
    recs = {}
    meta = {}
    order = []
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) != 6:
                continue
            sec, stack, mtu, size, metric, value = p
            if sec == "meta":
                meta[metric] = value
                continue
            try:
                v = float(value)
            except ValueError:
                continue
            key = (sec, stack, mtu, size, metric)
            if key not in recs:
                order.append(key)
            recs[key] = v
    return recs, meta, order


def fmt(v, nd=1):
    if v is None:
        return "–"
    if abs(v) >= 100:
        return "%.0f" % v
    return "%.*f" % (nd, v)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def rtxt(v):
    return "–" if v is None else "%.2f×" % v


def tables(recs):
    out = []
    tab = {}
    g = recs.get
    bulk_keys = sorted({(k[2], k[3]) for k in recs if k[0] == "bulk" and k[3] != "-"},
                       key=lambda x: (int(x[0]), size_of(x[1])))
    if bulk_keys:
        out.append("### Bulk: one connection, one stream, upload (MB/s; CPU s/GB of the whole guest)\n")
        out.append("| MTU | write | TCP | kTLS | ngtcp2* | aioquic* | ours | ours/kTLS | ours/ngtcp2 "
                   "| CPU s/GB: TCP | kTLS | ngtcp2* | aioquic* | ours |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        rows = []
        for mtu, size in bulk_keys:
            v = {s: g(("bulk", s, mtu, size, "MBps")) for s in ("tcp", "ktls", "quic")}
            c = {s: g(("bulk", s, mtu, size, "cpu_s_per_gb")) for s in ("tcp", "ktls", "quic")}
            for s in ("ngtcp2", "aioquic"):
                v[s] = g(("bulk", s, mtu, "-", "MBps"))
                c[s] = g(("bulk", s, mtu, "-", "cpu_s_per_gb"))
            row = {"mtu": int(mtu), "write": size, "MBps": v, "cpu_s_per_gb": c,
                   "ours_vs_ktls": ratio(v["quic"], v["ktls"]),
                   "ours_vs_ngtcp2": ratio(v["quic"], v["ngtcp2"])}
            rows.append(row)
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                mtu, size, fmt(v["tcp"]), fmt(v["ktls"]), fmt(v["ngtcp2"]), fmt(v["aioquic"]),
                fmt(v["quic"]), rtxt(row["ours_vs_ktls"]), rtxt(row["ours_vs_ngtcp2"]),
                fmt(c["tcp"]), fmt(c["ktls"]), fmt(c["ngtcp2"]), fmt(c["aioquic"]), fmt(c["quic"])))
        out.append("\n\\* ngtcp2 (HTTP/3) and aioquic (hq-interop): download of one file by "
                   "their own client, timed from its start to its exit; no write size of "
                   "ours applies, the same figure is shown on each row of its MTU.\n")
        tab["bulk"] = rows
    rr_sizes = sorted({k[3] for k in recs if k[0] == "rr"}, key=size_of)
    if rr_sizes:
        out.append("### Request/response on one connection (transactions/s)\n")
        out.append("| message | TCP | kTLS | ours | ours/kTLS | ours/TCP |")
        out.append("|---|---|---|---|---|---|")
        rows = []
        for size in rr_sizes:
            v = {s: g(("rr", s, "1500", size, "tps")) for s in ("tcp", "ktls", "quic")}
            row = {"message": size, "tps": v, "ours_vs_ktls": ratio(v["quic"], v["ktls"]),
                   "ours_vs_tcp": ratio(v["quic"], v["tcp"])}
            rows.append(row)
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                size, fmt(v["tcp"]), fmt(v["ktls"]), fmt(v["quic"]),
                rtxt(row["ours_vs_ktls"]), rtxt(row["ours_vs_tcp"])))
        out.append("")
        tab["rr"] = rows
    if any(k[0] == "hs" for k in recs):
        k, q = g(("hs", "ktls", "1500", "-", "hps")), g(("hs", "quic", "1500", "-", "hps"))
        kc, qc = g(("hs", "ktls", "1500", "-", "cpu_ms_per_hs")), g(("hs", "quic", "1500", "-", "cpu_ms_per_hs"))
        out.append("### Handshakes (one at a time, full TLS 1.3 handshake, ECDSA P-256)\n")
        out.append("| | GnuTLS over TCP | ours | ours/GnuTLS-TCP |")
        out.append("|---|---|---|---|")
        out.append("| handshakes/s | %s | %s | %s |" % (fmt(k), fmt(q), rtxt(ratio(q, k))))
        out.append("| CPU ms per handshake (guest) | %s | %s | |" % (fmt(kc), fmt(qc)))
        out.append("")
        tab["hs"] = {"hps": {"ktls": k, "quic": q}, "ours_vs_gnutls_tcp": ratio(q, k),
                     "cpu_ms_per_hs": {"ktls": kc, "quic": qc}}
    idle = sorted({(k[1], k[3]) for k in recs if k[0] == "idle"})
    if idle:
        out.append("### Idle connections held by one listener (kernel memory)\n")
        out.append("| stack | asked | held | set-up s | kernel MB (both sides) | KB per connection per side | of it slab KB |")
        out.append("|---|---|---|---|---|---|---|")
        rows = []
        for stack, n in idle:
            gv = lambda m: g(("idle", stack, "1500", n, m))
            row = {"stack": stack, "asked": int(n), "held": gv("held"), "setup_s": gv("setup_s"),
                   "kernel_mb": gv("kernel_mb"), "kb_per_side": gv("kb_per_side"),
                   "slab_kb_per_side": gv("slab_kb_per_side")}
            rows.append(row)
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                NAMES.get(stack, stack), n, fmt(row["held"], 0), fmt(row["setup_s"], 0),
                fmt(row["kernel_mb"]), fmt(row["kb_per_side"]), fmt(row["slab_kb_per_side"])))
        out.append("")
        tab["idle"] = rows
    return "\n".join(out), tab


def size_of(s):
    try:
        m = {"K": 1024, "M": 1 << 20}
        return int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s)
    except (ValueError, IndexError):
        return 0


def chart(recs, tab, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("# no matplotlib: no chart (apt install python3-matplotlib)", file=sys.stderr)
        return False
    fig, ax = plt.subplots(2, 2, figsize=(13, 8.5))
    colors = {"tcp": "#999999", "ktls": "#4c72b0", "ngtcp2": "#dd8452", "aioquic": "#8c8c3c",
              "quic": "#c44e52"}
    for i, (key, label) in enumerate((("MBps", "bulk MB/s"), ("cpu_s_per_gb", "CPU s per GB (guest)"))):
        a = ax[0][i]
        rows = tab.get("bulk", [])
        xs = ["MTU %d\n%s" % (r["mtu"], r["write"]) for r in rows]
        w = 0.16
        for j, s in enumerate(STACKS):
            ys = [r[key].get(s) or 0 for r in rows]
            a.bar([x + (j - 2) * w for x in range(len(rows))], ys, w, label=NAMES[s], color=colors[s])
        a.set_xticks(range(len(rows)))
        a.set_xticklabels(xs, fontsize=8)
        a.set_title(label)
        a.legend(fontsize=7)
    a = ax[1][0]
    rows = tab.get("rr", [])
    w = 0.25
    for j, s in enumerate(("tcp", "ktls", "quic")):
        a.bar([x + (j - 1) * w for x in range(len(rows))], [r["tps"].get(s) or 0 for r in rows], w,
              label=NAMES[s], color=colors[s])
    a.set_xticks(range(len(rows)))
    a.set_xticklabels(["RR %s bytes" % r["message"] for r in rows])
    a.set_title("request/response transactions/s")
    a.legend(fontsize=7)
    a = ax[1][1]
    labels, vals, cols = [], [], []
    hs = tab.get("hs")
    if hs:
        for s, n in (("ktls", "GnuTLS/TCP"), ("quic", "ours")):
            labels.append("%s\nhandshakes/s" % n)
            vals.append(hs["hps"].get(s) or 0)
            cols.append(colors[s])
    for r in tab.get("idle", []):
        labels.append("%s idle\nKB/conn/side" % NAMES.get(r["stack"], r["stack"]).split()[0])
        vals.append(r["kb_per_side"] or 0)
        cols.append(colors.get(r["stack"], "#777777"))
    a.bar(range(len(vals)), vals, color=cols)
    a.set_xticks(range(len(vals)))
    a.set_xticklabels(labels, fontsize=8)
    a.set_title("handshakes/s and idle memory")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return True


def main():
    path = sys.argv[1]
    recs, meta, order = load(path)
    md, tab = tables(recs)
    base = os.path.splitext(path)[0]
    title = "bench/run %s: guest %s, %s vCPU (%s), TCG; host %s" % (
        os.path.basename(base), meta.get("kernel", "?"), meta.get("cpus", "?"),
        meta.get("cpu_model", "?"), platform.node() or "?")
    print("## " + title + "\n")
    print(md)
    doc = {"title": title, "meta": meta, "tables": tab,
           "records": [dict(zip(("section", "stack", "mtu", "size", "metric"), k), value=recs[k])
                       for k in order]}
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    print("# wrote %s.json" % base, file=sys.stderr)
    if chart(recs, tab, base + ".png", title):
        print("# wrote %s.png" % base, file=sys.stderr)


if __name__ == "__main__":
    main()
