#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""quic-hq's HTTP/3 code (proto.c, h3*.c, qpack.c, huff.c, through
tests/h3_shim.so) over aioquic's QUIC, for interop checks with real HTTP/3
peers on a host without the kernel's IPPROTO_QUIC streams.  aioquic
carries the QUIC streams only; every HTTP/3 byte is made and read by the C
code, exactly as quic-hq does on the kernel's sockets.

  h3_over_aioquic.py server --listen ADDR:PORT --cert F --key F --root DIR
  h3_over_aioquic.py client [--ca F | --insecure] --out DIR URL...

Same command line as quic-hq; the client exits 0 only if every file
arrived whole with status 200.
"""

import argparse
import asyncio
import ctypes
import os
import ssl
import sys
from urllib.parse import urlsplit

from aioquic.asyncio import QuicConnectionProtocol, connect, serve
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import (ConnectionTerminated, HandshakeCompleted,
                                 StreamDataReceived, StreamReset)

lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "h3_shim.so"))
P, B, Z, I64 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int64
lib.shim_conn_new.restype = P
lib.shim_stream_new.restype = P
lib.shim_uni.argtypes = [P, I64, B, Z, ctypes.c_int, B, Z]
lib.shim_stream_free.argtypes = [P]
lib.shim_request.argtypes = [B, B, Z]
lib.shim_response.argtypes = [P, B, Z, ctypes.c_int, ctypes.c_int, B, Z]
lib.shim_on_request.argtypes = [P, B, Z, ctypes.c_int,
                                ctypes.POINTER(ctypes.c_int), B, Z]
lib.shim_serve.argtypes = [B, ctypes.c_int, B, B, Z, ctypes.POINTER(Z),
                           ctypes.POINTER(ctypes.c_int), ctypes.POINTER(I64),
                           ctypes.POINTER(ctypes.c_int)]


def log(*a):
    print("h3_over_aioquic:", *a, file=sys.stderr, flush=True)


class H3(QuicConnectionProtocol):
    server = 0

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.conn = lib.shim_conn_new(self.server)
        self.why = ctypes.create_string_buffer(256)
        self.opened = False

    def open_control(self):
        """Our control stream with SETTINGS, first thing after the handshake."""
        if self.opened:
            return
        self.opened = True
        buf = ctypes.create_string_buffer(64)
        n = lib.shim_preface(buf, 64)
        sid = self._quic.get_next_available_stream_id(is_unidirectional=True)
        self._quic.send_stream_data(sid, buf.raw[:n])
        self.transmit()

    def uni(self, ev):
        if lib.shim_uni(self.conn, ev.stream_id, ev.data, len(ev.data),
                        int(ev.end_stream), self.why, 256):
            log(self.why.value.decode())


class Server(H3):
    server = 1
    root = "."

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.reqs = {}

    def quic_event_received(self, ev):
        if isinstance(ev, HandshakeCompleted):
            self.open_control()
        elif isinstance(ev, StreamDataReceived):
            if ev.stream_id & 2:
                self.uni(ev)
            elif ev.stream_id & 3 == 0:
                self.request(ev)

    def request(self, ev):
        sid = ev.stream_id
        if sid not in self.reqs:
            self.reqs[sid] = lib.shim_stream_new(1)
        st = self.reqs[sid]
        if st is None:
            return		# answered already
        m, path = ctypes.c_int(), ctypes.create_string_buffer(1024)
        r = lib.shim_on_request(st, ev.data, len(ev.data), int(ev.end_stream),
                                ctypes.byref(m), path, 1024)
        if r == 0:
            return
        lib.shim_stream_free(st)
        self.reqs[sid] = None
        if r < 0:
            log("stream %d: bad request, reset 0x%x" % (sid, -r))
            self._quic.reset_stream(sid, -r)
            self.transmit()
            return
        head = ctypes.create_string_buffer(256)
        hlen, fd, size, status = Z(), ctypes.c_int(), I64(), ctypes.c_int()
        r = lib.shim_serve(self.root.encode(), m.value, path.value, head, 256,
                           ctypes.byref(hlen), ctypes.byref(fd),
                           ctypes.byref(size), ctypes.byref(status))
        if r < 0:
            self._quic.reset_stream(sid, -r)
            self.transmit()
            return
        body = b""
        if fd.value >= 0:
            body = os.pread(fd.value, size.value, 0)
            os.close(fd.value)
        log("stream %d: %s %d, %d bytes" % (sid, path.value.decode(),
                                             status.value, len(body)))
        self._quic.send_stream_data(sid, head.raw[:hlen.value] + body,
                                    end_stream=True)
        self.transmit()


class Client(H3):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.x = {}		# stream id -> [url, stream, fd, result]
        self.done = asyncio.get_running_loop().create_future()

    def request(self, urls, out):
        self.open_control()
        for u in urls:
            buf = ctypes.create_string_buffer(4096)
            n = lib.shim_request(u.encode(), buf, 4096)
            name = os.path.basename(urlsplit(u).path) or "index.html"
            fd = os.open(os.path.join(out, name),
                         os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            sid = self._quic.get_next_available_stream_id()
            self.x[sid] = [u, lib.shim_stream_new(0), fd, None]
            self._quic.send_stream_data(sid, buf.raw[:n], end_stream=True)
        self.transmit()

    def finish(self, sid, result):
        x = self.x.get(sid)
        if x is None or x[3] is not None:
            return
        x[3] = result
        os.close(x[2])
        lib.shim_stream_free(x[1])
        if result != "ok":
            log("%s: %s" % (x[0], result))
        if all(v[3] is not None for v in self.x.values()) and not self.done.done():
            self.done.set_result(None)

    def quic_event_received(self, ev):
        if isinstance(ev, StreamDataReceived):
            if ev.stream_id & 2:
                self.uni(ev)
                return
            x = self.x.get(ev.stream_id)
            if x is None or x[3] is not None:
                return
            r = lib.shim_response(x[1], ev.data, len(ev.data),
                                  int(ev.end_stream), x[2], self.why, 256)
            if r < 0:
                self.finish(ev.stream_id, self.why.value.decode())
            elif r > 0:
                self.finish(ev.stream_id, "ok")
        elif isinstance(ev, StreamReset):
            self.finish(ev.stream_id, "reset, error 0x%x" % ev.error_code)
        elif isinstance(ev, ConnectionTerminated):
            for sid in list(self.x):
                self.finish(sid, "connection closed: 0x%x %s" %
                            (ev.error_code, ev.reason_phrase))


async def run_server(a):
    host, _, port = a.listen.rpartition(":")
    cfg = QuicConfiguration(is_client=False, alpn_protocols=["h3"])
    cfg.load_cert_chain(a.cert, a.key)
    Server.root = os.path.realpath(a.root)
    await serve(host.strip("[]"), int(port), configuration=cfg,
                create_protocol=Server)
    log("server: listening on %s" % a.listen)
    await asyncio.Future()


async def run_client(a):
    u = urlsplit(a.urls[0])
    cfg = QuicConfiguration(is_client=True, alpn_protocols=["h3"])
    if a.insecure:
        cfg.verify_mode = ssl.CERT_NONE
    elif a.ca:
        cfg.load_verify_locations(a.ca)
    os.makedirs(a.out, exist_ok=True)
    async with connect(u.hostname, u.port or 443, configuration=cfg,
                       create_protocol=Client) as c:
        c.request(a.urls, a.out)
        try:
            await asyncio.wait_for(c.done, 60)
        except asyncio.TimeoutError:
            log("client: timed out")
    good = sum(1 for v in c.x.values() if v[3] == "ok")
    print("h3_over_aioquic client: %d/%d files" % (good, len(a.urls)))
    return 0 if good == len(a.urls) else 1


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--listen", required=True)
    s.add_argument("--cert", required=True)
    s.add_argument("--key", required=True)
    s.add_argument("--root", required=True)
    c = sub.add_parser("client")
    g = c.add_mutually_exclusive_group()
    g.add_argument("--ca")
    g.add_argument("--insecure", action="store_true")
    c.add_argument("--out", default=".")
    c.add_argument("urls", nargs="+")
    a = p.parse_args()
    return asyncio.run(run_server(a) if a.cmd == "server" else run_client(a))


if __name__ == "__main__":
    sys.exit(main())
