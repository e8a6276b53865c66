#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print, as hex per stream, what an HTTP/3 peer sends to an endpoint that
allows no QPACK dynamic table (SETTINGS QPACK_MAX_TABLE_CAPACITY 0): the
kind of bytes quic-hq must decode.  h3_test.c's nghttp3 vectors came from
this, against Debian's gtlsserver and gtlsclient.  aioquic carries the
QUIC streams only; our few HTTP/3 bytes are written here by hand.

  capture_h3.py client HOST PORT PATH       ask for PATH, print the answer
  capture_h3.py server ADDR PORT CERT KEY   answer one request, print it

e.g.  gtlsserver -d DIR 127.0.0.1 4433 key cert &
      capture_h3.py client 127.0.0.1 4433 /file
      capture_h3.py server 127.0.0.1 4433 cert key &
      gtlsclient --exit-on-all-streams-close 127.0.0.1 4433 https://127.0.0.1:4433/f
"""
import asyncio
import ssl
import sys

from aioquic.asyncio import QuicConnectionProtocol, connect, serve
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, StreamDataReceived

# control stream: type 0x00, SETTINGS (length 4): capacity 0, blocked 0
PREFACE = bytes([0x00, 0x04, 0x04, 0x01, 0x00, 0x07, 0x00])


def prefixed(first, prefix, v):
    """An RFC 7541 5.1 integer with a prefix-bit prefix."""
    m = (1 << prefix) - 1
    if v < m:
        return bytes([first | v])
    out = bytearray([first | m])
    v -= m
    while v >= 128:
        out.append(0x80 | (v & 127))
        v >>= 7
    out.append(v)
    return bytes(out)


def headers(fields):
    """A HEADERS frame of literal names and values, no Huffman."""
    sec = bytearray([0, 0])
    for n, v in fields:
        sec += prefixed(0x20, 3, len(n)) + n + prefixed(0, 7, len(v)) + v
    assert len(sec) < 16384
    n = len(sec)		# a 1- or 2-byte varint
    return bytes([0x01]) + (bytes([n]) if n < 64 else
                            bytes([0x40 | n >> 8, n & 255])) + bytes(sec)


class Capture(QuicConnectionProtocol):
    answers = False		# the server side answers the request

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.got = {}
        self.done = asyncio.get_running_loop().create_future()
        self.opened = False

    def open_control(self):
        if not self.opened:
            self.opened = True
            sid = self._quic.get_next_available_stream_id(is_unidirectional=True)
            self._quic.send_stream_data(sid, PREFACE)
            self.transmit()

    def quic_event_received(self, ev):
        if isinstance(ev, StreamDataReceived):
            self.open_control()
            self.got.setdefault(ev.stream_id, bytearray()).extend(ev.data)
            if ev.stream_id % 4 or not ev.end_stream:
                return
            if self.answers:
                self._quic.send_stream_data(
                    ev.stream_id, headers([(b":status", b"200")]) +
                    bytes([0x00, 5]) + b"hello", end_stream=True)
                self.transmit()
            # let the other streams' bytes arrive too
            asyncio.get_running_loop().call_later(
                0.3, lambda: self.done.done() or self.done.set_result(1))
        elif isinstance(ev, ConnectionTerminated) and not self.done.done():
            self.done.set_result(0)


class Answering(Capture):
    answers = True


def dump(got):
    for sid in sorted(got):
        print("stream %d: %s" % (sid, got[sid].hex()))


async def client(host, port, path):
    cfg = QuicConfiguration(is_client=True, alpn_protocols=["h3"],
                            verify_mode=ssl.CERT_NONE)
    async with connect(host, int(port), configuration=cfg,
                       create_protocol=Capture) as p:
        p.open_control()
        sid = p._quic.get_next_available_stream_id()
        p._quic.send_stream_data(sid, headers([
            (b":method", b"GET"), (b":scheme", b"https"),
            (b":authority", host.encode()), (b":path", path.encode())]),
            end_stream=True)
        p.transmit()
        await asyncio.wait_for(p.done, 10)
        dump(p.got)


async def server(addr, port, cert, key):
    cfg = QuicConfiguration(is_client=False, alpn_protocols=["h3"])
    cfg.load_cert_chain(cert, key)
    made = []

    def factory(*a, **kw):
        made.append(Answering(*a, **kw))
        return made[-1]

    await serve(addr, int(port), configuration=cfg, create_protocol=factory)
    while not made:
        await asyncio.sleep(0.05)
    await asyncio.wait_for(made[0].done, 30)
    dump(made[0].got)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "client":
        asyncio.run(client(*sys.argv[2:5]))
    elif len(sys.argv) == 6 and sys.argv[1] == "server":
        asyncio.run(server(*sys.argv[2:6]))
    else:
        sys.exit(__doc__)
