#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/loss_report.py [--markdown] RECORDS.tsv: the table and charts of bench/loss.

RECORDS.tsv has one transfer per line: rtt_ms loss_pct sender seconds
status counters; a "#" line before each boot's records gives their file
size ("(N MB)"), so boots of bench/loss --append with different sizes
mix.  A point measured several times (bench/loss --rounds, or boots
appended) is its median record; one measured at another size replaces
the earlier ones.  Prints, per
RTT, one row per sender and one column per loss rate (seconds, with the
size where the RTT's points differ in size; "t/o" for a timeout, "fail"
for a failed transfer), the goodput (Mbit/s), then the ratio of each of
our senders' time per MB to ngtcp2's (below 1: ours is faster).  With
matplotlib, writes RECORDS.png (goodput by loss, one line per sender, one
panel per RTT; a timeout is drawn as an open marker at the goodput it
would have had finishing at the limit, an upper bound) and, if
RECORDS-cwnd.tsv exists next to it (time, cwnd bytes, smoothed RTT us,
datagram size, congestion control state; a "#" line names the run),
RECORDS-cwnd.png.  --markdown: only the tables, in Markdown, one per RTT,
each cell "seconds (ratio to ngtcp2)", for the README.
"""

import os
import re
import sys


def load(path):
    cell, size = {}, 0.0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                m = re.search(r"\(([\d.]+) MB\)", line)
                size = float(m.group(1)) if m else size
                continue
            p = line.rstrip("\n").split("\t")
            if len(p) < 5:
                continue
            r = (float(p[0]), float(p[1]), p[2], float(p[3]), p[4],
                 p[5] if len(p) > 5 else "", size)
            same = [x for x in cell.get(r[:3], []) if x[6] == r[6]]
            cell[r[:3]] = same + [r]    # a new size starts the point again
    return [median(v) for v in cell.values()]


def median(recs):
    """the median record of a point measured several times (the lower
    middle one of an even count; a failed or timed-out transfer ranks as
    the slowest)"""
    ranked = sorted(recs, key=lambda r: (r[4] != "ok", r[3]))
    return ranked[(len(ranked) - 1) // 2]


def fmt(n):
    return "%g" % n


def goodput(r):
    """Mbit/s of a finished transfer (1 MB = 2^20 bytes)"""
    return r[6] * 8 * 1048576 / 1e6 / r[3] if r[3] > 0 else 0.0


def table(recs):
    rtts = sorted({r[0] for r in recs})
    losses = sorted({r[1] for r in recs})
    senders = list(dict.fromkeys(r[2] for r in recs))
    cell = {(r[0], r[1], r[2]): r for r in recs}
    sizes = sorted({r[6] for r in recs})
    print("bench/loss: seconds to move %s MB (lower is better)" %
          "/".join(fmt(s) for s in sizes))
    for rtt in rtts:
        mixed = len({r[6] for r in recs if r[0] == rtt}) > 1
        print()
        print("RTT %s ms%s" % (fmt(rtt), "" if mixed else
              ", %s MB" % fmt(next(r[6] for r in recs if r[0] == rtt))))
        head = "%-18s" % "sender" + "".join(
            "%12s" % ("loss %s%%" % fmt(x)) for x in losses)
        print(head)
        here = [s for s in senders if any((rtt, x, s) in cell for x in losses)]
        for s in here:
            row = "%-18s" % s
            for x in losses:
                r = cell.get((rtt, x, s))
                if not r:
                    v = "-"
                elif r[4] == "ok":
                    v = "%.1f" % r[3]
                else:
                    v = "t/o %g" % r[3] if r[4] == "timeout" else "fail"
                if r and mixed:
                    v += " (%gM)" % r[6]
                row += "%12s" % v
            print(row)
        print("goodput, Mbit/s")
        for s in here:
            row = "%-18s" % s
            for x in losses:
                r = cell.get((rtt, x, s))
                row += "%12s" % ("%.2f" % goodput(r)
                                 if r and r[4] == "ok" else "-")
            print(row)
        ref = "ngtcp2"
        for s in here:
            if not s.startswith(("quic-", "base-")):
                continue
            row = "%-18s" % ("%s/%s" % (s, ref))
            have = False
            for x in losses:
                a, b = cell.get((rtt, x, s)), cell.get((rtt, x, ref))
                if a and b and a[4] == "ok" and b[4] == "ok" and b[3] > 0:
                    row += "%12.2f" % (goodput(b) / goodput(a))
                    have = True
                else:
                    row += "%12s" % "-"
            if have:
                print(row)
    print()
    print("quic.ko counters over each run (both ends for ours):")
    for r in sorted(recs, key=lambda r: (r[0], r[2], r[1])):
        if r[5]:
            print("  RTT %s ms loss %s%% %-12s %s" % (fmt(r[0]), fmt(r[1]),
                                                   r[2], r[5]))


def markdown(recs):
    rtts = sorted({r[0] for r in recs})
    losses = sorted({r[1] for r in recs})
    senders = list(dict.fromkeys(r[2] for r in recs))
    cell = {(r[0], r[1], r[2]): r for r in recs}
    for rtt in rtts:
        sizes = sorted({r[6] for r in recs if r[0] == rtt})
        print()
        print("RTT %s ms, %s MB: seconds (time per MB over ngtcp2's)" %
              (fmt(rtt), "/".join(fmt(x) for x in sizes)))
        print()
        print("| sender | " + " | ".join("loss %s%%" % fmt(x)
                                        for x in losses) + " |")
        print("|---" * (len(losses) + 1) + "|")
        for s in senders:
            if not any((rtt, x, s) in cell for x in losses):
                continue
            row = []
            for x in losses:
                r, b = cell.get((rtt, x, s)), cell.get((rtt, x, "ngtcp2"))
                if not r:
                    row.append("-")
                    continue
                if r[4] != "ok":
                    row.append("%s (%g s)" % ("timeout" if r[4] == "timeout"
                                              else "failed", r[3]))
                    continue
                v = "%.1f" % r[3]
                if s != "ngtcp2" and b and b[4] == "ok":
                    v += " (%.2f)" % (goodput(b) / goodput(r))
                row.append(v)
            print("| %s | %s |" % (s, " | ".join(row)))


def charts(path, recs):
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
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, axes = plt.subplots(1, len(rtts), figsize=(4.2 * len(rtts), 3.8),
                             squeeze=False)
    for ax, rtt in zip(axes[0], rtts):
        sizes = sorted({r[6] for r in recs if r[0] == rtt})
        for i, s in enumerate(senders):
            c = colors[i % len(colors)]
            pts = sorted((r[1], goodput(r)) for r in recs
                         if r[0] == rtt and r[2] == s and r[4] == "ok")
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-",
                        color=c, label=s)
            to = [(r[1], goodput(r)) for r in recs
                  if r[0] == rtt and r[2] == s and r[4] == "timeout"]
            if to:
                ax.plot([p[0] for p in to], [p[1] for p in to], "o",
                        mfc="none", color=c)
        ax.set_yscale("log")
        ax.set_title("RTT %s ms, %s MB" % (fmt(rtt),
                     "/".join(fmt(s) for s in sizes)))
        ax.set_xlabel("loss (%, each direction)")
        ax.set_ylabel("goodput (Mbit/s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(base + ".png", dpi=80)
    print("chart: %s.png" % base)

    cpath = base + "-cwnd.tsv"
    if not os.path.exists(cpath):
        return
    t, cw, srtt, title = [], [], [], ""
    with open(cpath) as f:
        for line in f:
            if line.startswith("#"):
                title = line[1:].strip()
                continue
            p = line.split()
            if len(p) >= 3:
                t.append(float(p[0]))
                dgram = int(p[3]) if len(p) > 3 and int(p[3]) else 1200
                cw.append(int(p[1]) / float(dgram))
                srtt.append(int(p[2]) / 1000.0)
    if not t:
        return
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(t, cw, "b-", label="cwnd")
    ax.set_xlabel("seconds")
    ax.set_ylabel("cwnd (datagrams)", color="b")
    ax2 = ax.twinx()
    ax2.plot(t, srtt, "r-", alpha=0.5, label="smoothed RTT")
    ax2.set_ylabel("smoothed RTT (ms)", color="r")
    ax.set_title("our sender's cwnd over one run (/proc/net/quic)" +
                 ("\n" + title if title else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(base + "-cwnd.png", dpi=80)
    print("chart: %s-cwnd.png" % base)


def main():
    args = sys.argv[1:]
    md = args[:1] == ["--markdown"]
    if md:
        args = args[1:]
    if len(args) != 1:
        print(__doc__)
        return 2
    recs = load(args[0])
    if not recs:
        print("no records")
        return 1
    if md:
        markdown(recs)
        return 0
    table(recs)
    charts(args[0], recs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
