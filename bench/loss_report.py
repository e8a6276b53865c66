#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/loss_report.py RECORDS.tsv: the table and charts of bench/loss.

RECORDS.tsv has one transfer per line: rtt_ms loss_pct sender seconds
status counters (a "#" line first gives the file size).  Prints, per RTT, one row
per sender and one column per loss rate (seconds; "t/o" for a timeout,
"fail" for a failed transfer), then the ratio of each of our senders to
ngtcp2's.  With matplotlib, writes RECORDS.png (time by loss, one line per
sender, one panel per RTT) and, if RECORDS-cwnd.tsv exists next to it
(time, cwnd bytes, smoothed RTT us, datagram size, congestion control
state), RECORDS-cwnd.png.
"""

import os
import re
import sys


def load(path):
    recs, size = [], ""
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                m = re.search(r"\((\d+) MB\)", line)
                size = m.group(1) if m else size
                continue
            p = line.rstrip("\n").split("\t")
            if len(p) < 5:
                continue
            recs.append((float(p[0]), float(p[1]), p[2], float(p[3]), p[4],
                         p[5] if len(p) > 5 else ""))
    return recs, size


def fmt(n):
    return "%g" % n


def table(recs, size):
    rtts = sorted({r[0] for r in recs})
    losses = sorted({r[1] for r in recs})
    senders = list(dict.fromkeys(r[2] for r in recs))
    cell = {(r[0], r[1], r[2]): r for r in recs}
    print("bench/loss: seconds to move %s MB (lower is better)" % (size or "?"))
    for rtt in rtts:
        print()
        print("RTT %s ms" % fmt(rtt))
        print("%-18s" % "sender" + "".join("%10s" % ("loss %s%%" % fmt(x)) for x in losses))
        for s in senders:
            row = "%-18s" % s
            for x in losses:
                r = cell.get((rtt, x, s))
                if not r:
                    row += "%10s" % "-"
                elif r[4] == "ok":
                    row += "%10.1f" % r[3]
                else:
                    row += "%10s" % ("t/o" if r[4] == "timeout" else "fail")
            print(row)
        ref = "ngtcp2"
        for s in senders:
            if not s.startswith(("quic-", "base-")):
                continue
            row = "%-18s" % ("%s/%s" % (s, ref))
            have = False
            for x in losses:
                a, b = cell.get((rtt, x, s)), cell.get((rtt, x, ref))
                if a and b and a[4] == "ok" and b[4] == "ok" and b[3] > 0:
                    row += "%10.2f" % (a[3] / b[3])
                    have = True
                else:
                    row += "%10s" % "-"
            if have:
                print(row)
    print()
    print("quic.ko counters over each run (both ends for ours):")
    for r in recs:
        if r[5]:
            print("  RTT %s ms loss %s%% %-12s %s" % (fmt(r[0]), fmt(r[1]),
                                                   r[2], r[5]))


def charts(path, recs, size):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no chart)")
        return
    base = os.path.splitext(path)[0]
    rtts = sorted({r[0] for r in recs})
    senders = list(dict.fromkeys(r[2] for r in recs))
    fig, axes = plt.subplots(1, len(rtts), figsize=(5 * len(rtts), 4),
                             squeeze=False)
    for ax, rtt in zip(axes[0], rtts):
        for s in senders:
            pts = sorted((r[1], r[3]) for r in recs
                         if r[0] == rtt and r[2] == s and r[4] == "ok")
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-",
                        label=s)
        ax.set_title("RTT %s ms" % fmt(rtt))
        ax.set_xlabel("loss (%, each direction)")
        ax.set_ylabel("seconds for %s MB" % (size or "?"))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(base + ".png", dpi=100)
    print("chart: %s.png" % base)

    cpath = base + "-cwnd.tsv"
    if not os.path.exists(cpath):
        return
    t, cw, srtt = [], [], []
    with open(cpath) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3:
                t.append(float(p[0]))
                dgram = int(p[3]) if len(p) > 3 and int(p[3]) else 1200
                cw.append(int(p[1]) / float(dgram))
                srtt.append(int(p[2]) / 1000.0)
    if not t:
        return
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(t, cw, "b-", label="cwnd")
    ax.set_xlabel("seconds")
    ax.set_ylabel("cwnd (datagrams)", color="b")
    ax2 = ax.twinx()
    ax2.plot(t, srtt, "r-", alpha=0.5, label="smoothed RTT")
    ax2.set_ylabel("smoothed RTT (ms)", color="r")
    ax.set_title("our sender's cwnd over one run (/proc/net/quic)")
    fig.tight_layout()
    fig.savefig(base + "-cwnd.png", dpi=100)
    print("chart: %s-cwnd.png" % base)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    recs, size = load(sys.argv[1])
    if not recs:
        print("no records")
        return 1
    table(recs, size)
    charts(sys.argv[1], recs, size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
