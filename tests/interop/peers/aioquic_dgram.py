# SPDX-License-Identifier: GPL-2.0-or-later
"""RFC 9221 datagram echo on aioquic, for tests/interop (case "datagram").

  aioquic_hq.py dgram-server --listen ADDR:PORT --cert F --key F [--alpn A]
  aioquic_hq.py dgram-client --ca F [--alpn A] [--count N]
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

It runs only through tests/interop/peers/aioquic_hq.py (and so its
spawner): a first argument "dgram-server" or "dgram-client" there calls
main() here.
"""

import argparse
import asyncio
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
    cfg.load_verify_locations(a.ca)	# the name checked: HOST
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


def main(argv):
    """argv: "server ..." or "client ..." (aioquic_hq.py dgram-server and
    dgram-client pass theirs)."""
    p = argparse.ArgumentParser(prog="aioquic_hq.py dgram-server|dgram-client",
                                description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("cmd", choices=("server", "client"))
    p.add_argument("--alpn", default=ALPN)
    p.add_argument("--listen", metavar="ADDR:PORT", help="server: where")
    p.add_argument("--cert", help="server: certificate chain")
    p.add_argument("--key", help="server: its key")
    p.add_argument("--ca", metavar="FILE", help="client: trust only this CA")
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--size", type=int, default=1000)
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("target", nargs="?", metavar="HOST:PORT")
    a = p.parse_intermixed_args(argv)
    if a.cmd == "server" and not (a.listen and a.cert and a.key):
        p.error("server: --listen, --cert and --key are needed")
    if a.cmd == "client" and (not a.target or not a.ca or a.size < 4):
        p.error("client: HOST:PORT, --ca and a --size of 4 or more")
    job = run_server(a) if a.cmd == "server" else run_client(a)
    return asyncio.run(job)
