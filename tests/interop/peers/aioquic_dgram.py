#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""RFC 9221 datagram echo on aioquic, for tests/interop (case "datagram").

  aioquic_dgram.py server --listen ADDR:PORT --cert F --key F [--alpn A]
  aioquic_dgram.py client [--ca F | --insecure] [--alpn A] [--count N]
                          [--size BYTES] [--timeout S] HOST:PORT

No application protocol beyond this: the ALPN is "dgram-echo" unless
--alpn says otherwise, both ends advertise max_datagram_frame_size 65535
(QuicConfiguration.max_datagram_frame_size), and the server sends every
DATAGRAM frame it receives back unchanged (send_datagram_frame()); it
prints per connection, when it ends, "aioquic dgram server: echoed N".
The client sends --count datagrams (default 50) of --size bytes (1000),
each starting with its 4-byte big-endian index, waits up to --timeout
seconds (10) for their echoes and prints
  aioquic dgram client: sent N, echoed M, bad B
exit status 0 only if every one came back whole (M = N, B = 0).

tests/interop/peers/aioquic_hq.py runs this through its spawner: its
first argument "dgram-server" or "dgram-client" calls main() here.
"""

import argparse
import asyncio
import ssl
import struct
import sys
import time

from aioquic.asyncio import QuicConnectionProtocol, connect, serve
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, DatagramFrameReceived

ALPN = "dgram-echo"
MAX_FRAME = 65535


def log(*a):
    print("aioquic dgram:", *a, file=sys.stderr, flush=True)


def payload(i, size):
    """Datagram i: its index, then a pattern of it."""
    head = struct.pack("!I", i)
    return (head + bytes((i * 7 + k) & 0xff for k in range(size)))[:size]


class Echo(QuicConnectionProtocol):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.echoed = 0

    def quic_event_received(self, ev):
        if isinstance(ev, DatagramFrameReceived):
            self._quic.send_datagram_frame(ev.data)
            self.echoed += 1
            self.transmit()
        elif isinstance(ev, ConnectionTerminated):
            print("aioquic dgram server: echoed %d" % self.echoed,
                  file=sys.stderr, flush=True)


class Sender(QuicConnectionProtocol):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.got = set()
        self.bad = 0
        self.size = 0
        self.want = 0
        self.all_back = asyncio.get_running_loop().create_future()

    def quic_event_received(self, ev):
        if not isinstance(ev, DatagramFrameReceived):
            return
        d = ev.data
        i = struct.unpack("!I", d[:4])[0] if len(d) >= 4 else -1
        if i < 0 or i >= self.want or d != payload(i, self.size):
            self.bad += 1
        else:
            self.got.add(i)
        if len(self.got) == self.want and not self.all_back.done():
            self.all_back.set_result(True)


def config(a, is_client):
    return QuicConfiguration(is_client=is_client, alpn_protocols=[a.alpn],
                             max_datagram_frame_size=MAX_FRAME,
                             idle_timeout=30.0)


async def run_server(a):
    host, port = a.listen.rsplit(":", 1)
    cfg = config(a, False)
    cfg.load_cert_chain(a.cert, a.key)
    await serve(host.strip("[]"), int(port), configuration=cfg,
                create_protocol=Echo)
    log("server listening on %s, ALPN %s" % (a.listen, a.alpn))
    await asyncio.Future()


async def run_client(a):
    host, port = a.target.rsplit(":", 1)
    cfg = config(a, True)
    if a.insecure:
        cfg.verify_mode = ssl.CERT_NONE
    elif a.ca:
        cfg.load_verify_locations(a.ca)
    if a.sni:
        cfg.server_name = a.sni
    t0 = time.monotonic()
    async with connect(host.strip("[]"), int(port), configuration=cfg,
                       create_protocol=Sender) as proto:
        proto.size = a.size
        proto.want = a.count
        for i in range(a.count):
            proto._quic.send_datagram_frame(payload(i, a.size))
            proto.transmit()
            await asyncio.sleep(0)
        try:
            await asyncio.wait_for(proto.all_back, a.timeout)
        except asyncio.TimeoutError:
            pass
        got, bad = len(proto.got), proto.bad
    print("aioquic dgram client: sent %d, echoed %d, bad %d, %.3f s" %
          (a.count, got, bad, time.monotonic() - t0), flush=True)
    return 0 if got == a.count and not bad else 1


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--listen", required=True, metavar="ADDR:PORT")
    s.add_argument("--cert", required=True)
    s.add_argument("--key", required=True)
    c = sub.add_parser("client")
    g = c.add_mutually_exclusive_group()
    g.add_argument("--ca", metavar="FILE", help="trust only this CA")
    g.add_argument("--insecure", action="store_true", help="check nothing")
    c.add_argument("--sni", help="server name to send and check")
    c.add_argument("--count", type=int, default=50)
    c.add_argument("--size", type=int, default=1000)
    c.add_argument("--timeout", type=float, default=10.0)
    c.add_argument("target", metavar="HOST:PORT")
    for x in (s, c):
        x.add_argument("--alpn", default=ALPN)
    a = p.parse_args(argv)
    if a.cmd == "client" and a.size < 4:
        p.error("--size must be at least 4")
    return asyncio.run(run_server(a) if a.cmd == "server" else run_client(a))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
