#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hq-interop (HTTP/0.9) client and server on aioquic, for tests/interop.

  aioquic_hq.py server --listen ADDR:PORT --cert F --key F --root DIR [--alpn A]
                       [--key-update BYTES] [--retry] [--versions LIST]
  aioquic_hq.py client [--ca F | --insecure] --out DIR [--alpn A]
                       [--key-update BYTES] [--versions LIST] [--version V]
                       [--session-ticket F [--0rtt]] URL...
  aioquic_hq.py spawner --dir DIR     (see spawner(); used by tests/interop)
  aioquic_hq.py dgram-server|dgram-client ...   (aioquic_dgram.py)

hq-interop: the client sends "GET /path\\r\\n" on a new bidirectional stream
with FIN, the server answers with the file's bytes and FIN, or resets the
stream.  "--alpn h3" speaks HTTP/3 instead (for Debian's ngtcp2 examples,
which know only h3).  The client fetches all URLs at once over one connection
and exits 0 only if every file arrived whole (FIN, no reset, status 200).

--key-update BYTES (K, M, G: powers of 1024): request a 1-RTT key update
(QuicConnection.request_key_update()) each time another BYTES of stream data
have arrived (client) or left in packets (server, per connection, and not
once all the server was asked for has left: see Server.transmit()); 0 requests
none.  Either way the key updates of the connection are counted from a qlog
trace (QuicConfiguration.quic_logger; only key updates and the stream bytes
of sent packets are kept), and printed at its end (client: stdout; server:
stderr, when the connection is over):
  key updates: initiated N, seen M, asked for R
initiated: ours (qlog key_updated, trigger local_update), seen: the peer's
(trigger remote_update), asked for: our request_key_update() calls.

--retry (server): every client's address is validated with a Retry first
(aioquic's serve(retry=True)).
--versions LIST (v1, v2 or hex, comma-separated): the QUIC versions aioquic
supports (QuicConfiguration.supported_versions; default v1,v2).  Client
--version V: the version of its first connection attempt
(QuicConfiguration.original_version), which may be one nobody supports, to
draw a Version Negotiation packet (it must be in --versions too: aioquic
keeps Initial keys only for those).
Resumption and 0-RTT.  The server keeps the session tickets it issues
(session_ticket_handler) in memory, each good for one resumption
(session_ticket_fetcher pops it), and aioquic accepts early data on them.
It prints per connection, when it ends, "resumed: yes|no, 0-RTT:
accepted|no" (HandshakeCompleted), and with --count-0rtt "0-RTT packets
received: N" (from the qlog trace).  The client with --session-ticket FILE
resumes with the ticket in FILE if there is one (a pickled
aioquic.tls.SessionTicket) and writes the newest ticket the server sends
there (waiting up to 3 s for one); --0rtt sends the requests before the
handshake completes (connect(wait_connected=False)), as 0-RTT data when the
ticket allows it.  It prints "aioquic client: resumed: yes|no" and, with
--0rtt, ", 0-RTT: accepted|rejected|not sent, 0-RTT packets sent: N".
"""

import argparse
import asyncio
import os
import pickle
import ssl
import sys
import time
from urllib.parse import urlsplit

from aioquic.asyncio import QuicConnectionProtocol, connect, serve
from aioquic.h3.connection import H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import (ConnectionTerminated, HandshakeCompleted,
                                 StreamDataReceived, StreamReset)
from aioquic.quic.logger import QuicLogger, QuicLoggerTrace
from aioquic.tls import SessionTicket

HQ = "hq-interop"
WINDOW = 16 << 20


def version(s):
    return {"v1": 0x1, "v2": 0x6b3343cf}.get(s) or int(s, 16)


def versions(s):
    return [version(v) for v in s.split(",")]


def set_versions(cfg, a):
    if a.versions:
        cfg.supported_versions = a.versions
    if getattr(a, "version", None):
        cfg.original_version = a.version


def log(*a):
    print("aioquic_hq:", *a, file=sys.stderr, flush=True)


def split_hostport(s):
    host, _, port = s.rpartition(":")
    return host.strip("[]"), int(port)


def size(s):
    """BYTES with an optional K, M or G (powers of 1024)."""
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    n = int(s[:-1] if mult > 1 else s)
    if n < 0:
        raise ValueError(s)
    return n * mult


class KeyTrace(QuicLoggerTrace):
    """A qlog trace that keeps only counts: key updates, and the stream
    bytes sent (each stream's highest offset in a sent packet, so that
    retransmissions do not count twice).  Each update logs one
    security:key_updated per direction's 1-RTT secret; the server's one is
    counted."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.initiated = 0
        self.seen = 0
        self.sent = 0
        self.ends = {}
        self.owner = None
        self.zerortt_sent = 0
        self.zerortt_received = 0

    def log_event(self, *, category, event, data):
        if category == "security" and event == "key_updated":
            if data.get("key_type") == "server_1rtt_secret":
                if data.get("trigger") == "local_update":
                    self.initiated += 1
                elif data.get("trigger") == "remote_update":
                    self.seen += 1
        elif category == "transport" and event == "packet_received":
            if data.get("header", {}).get("packet_type") == "0RTT":
                self.zerortt_received += 1
        elif category == "transport" and event == "packet_sent":
            if data.get("header", {}).get("packet_type") == "0RTT":
                self.zerortt_sent += 1
            for f in data.get("frames", ()):
                if f.get("frame_type") == "stream":
                    end = f["offset"] + f["length"]
                    old = self.ends.get(f["stream_id"], 0)
                    if end > old:
                        self.sent += end - old
                        self.ends[f["stream_id"]] = end


class KeyLogger(QuicLogger):
    """Hands out KeyTraces; a connection's protocol claims the trace its
    QuicConnection started (claim())."""

    def __init__(self):
        super().__init__()
        self.traces = []

    def start_trace(self, is_client, odcid):
        t = KeyTrace(is_client=is_client, odcid=odcid)
        self.traces.append(t)
        return t

    def end_trace(self, trace):
        pass		# keep the counts, nothing else is stored

    def claim(self, owner):
        """The newest trace nobody has claimed.  The QuicConnection starts
        its trace when it is made, and the protocol is made right after it,
        in the same call of the event loop."""
        for t in reversed(self.traces):
            if t.owner is None:
                t.owner = owner
                return t
        raise RuntimeError("no qlog trace for this connection")


class KeyUpdates:
    """--key-update BYTES of one connection: a request each time the
    connection's bytes pass another multiple of BYTES (0: never)."""

    def __init__(self, every, trace):
        self.every = every
        self.next = every
        self.asked = 0
        self.trace = trace

    def due(self, quic, total):
        if not self.every or total < self.next:
            return False
        quic.request_key_update()
        self.asked += 1
        self.next = (total // self.every + 1) * self.every
        return True

    def summary(self):
        return "key updates: initiated %d, seen %d, asked for %d" % (
            self.trace.initiated, self.trace.seen, self.asked)


def session_words(hs, trace, what):
    """ "resumed: yes, 0-RTT: accepted" of a HandshakeCompleted, and the
    count of 0-RTT packets of the trace (what: sent or received)."""
    if hs is None:
        return "no handshake"
    words = "resumed: %s, 0-RTT: %s" % (
        "yes" if hs.session_resumed else "no",
        "accepted" if hs.early_data_accepted else "no")
    if trace is not None:
        words += ", 0-RTT packets %s: %d" % (
            what, trace.zerortt_sent if what == "sent" else trace.zerortt_received)
    return words


class Server(QuicConnectionProtocol):
    root = "."
    key_update = None	# bytes between key updates, None: no counting
    logger = None	# a KeyLogger: --key-update or --count-0rtt

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.h3 = None
        self.reqs = {}
        self.start = time.monotonic()
        self.sent = 0
        self.streams = 0
        self.hs = None
        self.trace = self.logger.claim(self) if self.logger else None
        self.ku = None
        if self.key_update is not None:
            self.ku = KeyUpdates(self.key_update, self.trace)

    def transmit(self):
        super().transmit()
        # The bytes that left: time for a key update?  Not once all that
        # was asked for has left: aioquic 1.7.2 then reads none of the
        # peer's packets in the old key phase, and with nothing more of
        # ours to answer in the new one, the client's CONNECTION_CLOSE goes
        # unread and the connection ends by idle timeout (seen with
        # ngtcp2's client as with ours: one run in eight on the host).
        if (self.ku and self.ku.trace.sent < self.sent and
                self.ku.due(self._quic, self.ku.trace.sent)):
            super().transmit()

    def file(self, path):
        """The bytes to answer path with, or None."""
        full = os.path.realpath(os.path.join(self.root, path.lstrip("/")))
        if full != self.root and not full.startswith(self.root + os.sep):
            return None
        if os.path.isdir(full):
            full = os.path.join(full, "index.html")
        try:
            with open(full, "rb") as f:
                return f.read()
        except OSError:
            return None

    def quic_event_received(self, ev):
        if isinstance(ev, HandshakeCompleted):
            self.hs = ev
            if ev.alpn_protocol == "h3":
                self.h3 = H3Connection(self._quic)
        elif isinstance(ev, ConnectionTerminated):
            log("server: %d bytes, %.3f s, %d streams, closed: 0x%x%s; %s%s" %
                (self.sent, time.monotonic() - self.start, self.streams,
                 ev.error_code,
                 " " + ev.reason_phrase if ev.reason_phrase else "",
                 session_words(self.hs, self.trace, "received"),
                 "; " + self.ku.summary() if self.ku else ""))
        if self.h3 is not None:
            for h in self.h3.handle_event(ev):
                if isinstance(h, HeadersReceived):
                    self.answer_h3(h)
        elif isinstance(ev, StreamDataReceived):
            buf = self.reqs.get(ev.stream_id, b"") + ev.data
            self.reqs[ev.stream_id] = buf
            if b"\n" in buf or ev.end_stream:
                del self.reqs[ev.stream_id]
                self.answer_hq(ev.stream_id, buf)

    def answer_hq(self, sid, req):
        line = req.split(b"\n", 1)[0].rstrip(b"\r").decode("latin-1")
        data = None
        if line.startswith("GET /") and " " not in line[4:]:
            data = self.file(line[4:])
        if data is None:
            log("server: stream %d: bad request or no file: %r" % (sid, line))
            self._quic.reset_stream(sid, 0x10c)	# H3_REQUEST_REJECTED
        else:
            self._quic.send_stream_data(sid, data, end_stream=True)
            self.sent += len(data)
            self.streams += 1
        self.transmit()

    def answer_h3(self, h):
        hdr = dict(h.headers)
        data = self.file(hdr.get(b":path", b"").decode("latin-1"))
        if hdr.get(b":method") != b"GET" or data is None:
            self.h3.send_headers(h.stream_id, [(b":status", b"404")],
                                 end_stream=True)
        else:
            self.h3.send_headers(h.stream_id, [
                (b":status", b"200"),
                (b"content-length", str(len(data)).encode())])
            self.h3.send_data(h.stream_id, data, end_stream=True)
            self.sent += len(data)
            self.streams += 1
        self.transmit()


class Client(QuicConnectionProtocol):
    key_update = None	# bytes between key updates, None: no counting
    logger = None	# a KeyLogger: --key-update or --0rtt
    alpn = HQ
    cid_limit = None	# --cid-limit: our active_connection_id_limit

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        if self.cid_limit:
            # no public knob: set before the ClientHello carries it
            self._quic._local_active_connection_id_limit = self.cid_limit
        self.h3 = None
        self.files = {}		# stream id -> [path, file, bytes, status]
        self.done = asyncio.get_running_loop().create_future()
        self.error = None
        self.received = 0	# stream bytes, all streams
        self.hs = None		# HandshakeCompleted
        self.trace = self.logger.claim(self) if self.logger else None
        self.ku = None
        if self.key_update is not None:
            self.ku = KeyUpdates(self.key_update, self.trace)

    def request(self, urls, out):
        # with --0rtt this comes before the handshake completes
        if self.alpn == "h3" and self.h3 is None:
            self.h3 = H3Connection(self._quic)
        for u in urls:
            path = u.path or "/"
            if u.query:
                path += "?" + u.query
            name = os.path.basename(u.path) or "index.html"
            sid = self._quic.get_next_available_stream_id()
            f = open(os.path.join(out, name), "wb")
            self.files[sid] = [path, f, 0, None]
            if self.h3:
                self.h3.send_headers(sid, [
                    (b":method", b"GET"), (b":scheme", b"https"),
                    (b":authority", u.netloc.encode()),
                    (b":path", path.encode())], end_stream=True)
            else:
                self._quic.send_stream_data(sid, b"GET %s\r\n" % path.encode(),
                                            end_stream=True)
        self.transmit()

    def finish(self, sid, status):
        x = self.files.get(sid)
        if x is None or x[3] is not None:
            return
        x[3] = status
        x[1].close()
        if status != "ok":
            log("client: %s: %s" % (x[0], status))
        if all(v[3] is not None for v in self.files.values()) and \
           not self.done.done():
            self.done.set_result(None)

    def data(self, sid, data, fin):
        x = self.files.get(sid)
        if x is None:
            return
        x[1].write(data)
        x[2] += len(data)
        if fin:
            self.finish(sid, "ok")

    def quic_event_received(self, ev):
        if isinstance(ev, StreamDataReceived):
            self.received += len(ev.data)
            if self.ku and self.ku.due(self._quic, self.received):
                self.transmit()
        # h3 must see the server's first streams, which may come before
        # connect() returns
        if isinstance(ev, HandshakeCompleted):
            self.hs = ev
            if ev.alpn_protocol == "h3" and self.h3 is None:
                self.h3 = H3Connection(self._quic)
        elif isinstance(ev, ConnectionTerminated):
            self.error = "connection closed: error 0x%x%s: %s" % (
                ev.error_code,
                " (TLS alert %d)" % (ev.error_code - 0x100)
                if 0x100 <= ev.error_code < 0x200 else "",
                ev.reason_phrase or "-")
            for sid in list(self.files):
                self.finish(sid, "incomplete, " + self.error)
            if not self.done.done():
                self.done.set_result(None)
        elif isinstance(ev, StreamReset):
            self.finish(ev.stream_id, "reset by the server (error 0x%x)" %
                        ev.error_code)
        if self.h3 is not None:
            for h in self.h3.handle_event(ev):
                if isinstance(h, HeadersReceived):
                    st = dict(h.headers).get(b":status", b"?")
                    if st != b"200":
                        self.finish(h.stream_id, "HTTP status %s" % st.decode())
                    elif h.stream_ended:
                        self.finish(h.stream_id, "ok")
                elif isinstance(h, DataReceived):
                    self.data(h.stream_id, h.data, h.stream_ended)
        elif isinstance(ev, StreamDataReceived):
            self.data(ev.stream_id, ev.data, ev.end_stream)


async def run_server(a):
    host, port = split_hostport(a.listen)
    cfg = QuicConfiguration(is_client=False, alpn_protocols=a.alpn,
                            max_data=WINDOW, max_stream_data=WINDOW,
                            idle_timeout=a.idle_timeout)
    cfg.load_cert_chain(a.cert, a.key)
    set_versions(cfg, a)
    Server.root = os.path.realpath(a.root)
    if a.key_update is not None:
        Server.key_update = a.key_update
    if a.key_update is not None or a.count_0rtt:
        Server.logger = cfg.quic_logger = KeyLogger()
    tickets = {}	# issued, each good for one resumption
    await serve(host, port, configuration=cfg, create_protocol=Server,
                session_ticket_fetcher=tickets.pop,
                session_ticket_handler=lambda t: tickets.__setitem__(t.ticket, t),
                retry=a.retry)
    log("server: listening on %s port %d, ALPN %s" % (host, port, a.alpn))
    await asyncio.Future()


async def run_client(a):
    urls = [urlsplit(u) for u in a.urls]
    if any(u.scheme != "https" or u.netloc != urls[0].netloc for u in urls):
        log("client: URLs must all be https:// with the same host and port")
        return 2
    cfg = QuicConfiguration(is_client=True, alpn_protocols=a.alpn,
                            max_data=WINDOW, max_stream_data=WINDOW,
                            idle_timeout=a.idle_timeout)
    if a.insecure:
        cfg.verify_mode = ssl.CERT_NONE
    elif a.ca:
        cfg.load_verify_locations(a.ca)
    if a.sni:
        cfg.server_name = a.sni
    set_versions(cfg, a)
    if a.key_update is not None:
        Client.key_update = a.key_update
    if a.key_update is not None or a.zerortt:
        Client.logger = cfg.quic_logger = KeyLogger()
    Client.alpn = a.alpn[0]
    Client.cid_limit = a.cid_limit
    if a.session_ticket:
        cfg.session_ticket = load_ticket(a.session_ticket)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.monotonic()
    made = []
    tickets = []

    def factory(*x, **kw):
        made.append(Client(*x, **kw))
        return made[-1]

    try:
        async with connect(urls[0].hostname, urls[0].port or 443,
                           configuration=cfg, create_protocol=factory,
                           session_ticket_handler=tickets.append,
                           wait_connected=not a.zerortt) as proto:
            proto.request(urls, a.out)
            await proto.done
            # the ticket comes with the handshake's end; wait a little
            for _ in range(60):
                if tickets or not a.session_ticket or proto.error:
                    break
                await asyncio.sleep(0.05)
    except ConnectionError:
        pass
    dt = time.monotonic() - t0
    if a.session_ticket and tickets:
        save_ticket(a.session_ticket, tickets[-1])
    elif a.session_ticket and made and made[0].hs:
        log("client: no session ticket from the server: %s not written" %
            a.session_ticket)
    if not made or made[0].hs is None:
        log("client: handshake failed: %s" %
            (made[0].error if made and made[0].error else "no connection"))
        return 1
    proto = made[0]
    ok = sum(1 for v in proto.files.values() if v[3] == "ok")
    nbytes = sum(v[2] for v in proto.files.values())
    print("aioquic client: %d/%d files, %d bytes, %.3f s, %.1f MB/s" %
          (ok, len(urls), nbytes, dt, nbytes / dt / 1e6 if dt else 0),
          flush=True)
    if proto.ku:
        print("aioquic client: " + proto.ku.summary(), flush=True)
    if a.cid_limit:
        print("aioquic client: active_connection_id_limit %d, %d connection "
              "IDs from the server" %
              (a.cid_limit, len(proto._quic._peer_cid_sequence_numbers)),
              flush=True)
    if a.session_ticket:
        print("aioquic client: " + client_session_words(proto, a.zerortt),
              flush=True)
    if proto.error and ok < len(urls):
        log("client: " + proto.error)
    return 0 if ok == len(urls) else 1


def load_ticket(path):
    """The SessionTicket pickled in path, or None (no file yet, or one that
    is not a ticket: a full handshake)."""
    try:
        with open(path, "rb") as f:
            t = pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception as e:	# noqa: BLE001 (any damage: no resumption)
        log("client: %s: %s; a full handshake" % (path, e))
        return None
    if not isinstance(t, SessionTicket):
        log("client: %s: not a session ticket; a full handshake" % path)
        return None
    return t


def save_ticket(path, ticket):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        pickle.dump(ticket, f)
    os.rename(tmp, path)


def client_session_words(proto, zerortt):
    """ "resumed: yes|no" and with --0rtt ", 0-RTT: accepted|rejected|not
    sent, 0-RTT packets sent: N" (not sent: no 0-RTT packet left)."""
    words = "resumed: %s" % ("yes" if proto.hs.session_resumed else "no")
    if zerortt:
        sent = proto.trace.zerortt_sent
        words += ", 0-RTT: %s, 0-RTT packets sent: %d" % (
            "not sent" if not sent else
            "accepted" if proto.hs.early_data_accepted else "rejected", sent)
    return words


def spawner(a):
    """Import once, then fork one child per request: Python with aioquic
    takes a minute to start in a TCG guest, a fork takes nothing.  A
    request is a file DIR/req/ID.req of NUL-separated fields: network
    namespace ("" for this one), log file, then the arguments of this
    script.  The child's pid goes to DIR/ID.pid, its exit status (128+N
    for signal N, like a shell) to DIR/ID.rc."""
    import ctypes
    import traceback

    libc = ctypes.CDLL(None, use_errno=True)
    req = os.path.join(a.dir, "req")
    os.makedirs(req, exist_ok=True)

    def put(name, text):
        tmp = os.path.join(a.dir, name + ".tmp")
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.rename(tmp, os.path.join(a.dir, name))

    def child(ns, logfile, argv):
        rc = 1
        try:
            if ns:
                fd = os.open("/run/netns/" + ns, os.O_RDONLY)
                if libc.setns(fd, 0x40000000):	# CLONE_NEWNET
                    raise OSError(ctypes.get_errno(), "setns " + ns)
                os.close(fd)
            fd = os.open(logfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            rc = main(argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
        except BaseException:
            traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc or 0)

    kids = {}
    put("ready", str(os.getpid()))
    while True:
        for name in sorted(os.listdir(req)):
            if not name.endswith(".req"):
                continue
            with open(os.path.join(req, name), "rb") as f:
                fields = [x.decode() for x in f.read().split(b"\0")[:-1]]
            os.unlink(os.path.join(req, name))
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                child(fields[0], fields[1], fields[2:])
            kids[pid] = name[:-4]
            put(name[:-4] + ".pid", str(pid))
        while kids:
            pid, st = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            rc = os.waitstatus_to_exitcode(st)
            put(kids.pop(pid) + ".rc", str(rc if rc >= 0 else 128 - rc))
        time.sleep(0.05)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("dgram-server", "dgram-client"):
        # RFC 9221 datagram echo (aioquic_dgram.py), through the spawner
        import aioquic_dgram
        return aioquic_dgram.main([argv[0][6:]] + list(argv[1:]))
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--listen", required=True, metavar="ADDR:PORT")
    s.add_argument("--cert", required=True)
    s.add_argument("--key", required=True)
    s.add_argument("--root", required=True)
    s.add_argument("--retry", action="store_true",
                   help="send a Retry to every new client first")
    c = sub.add_parser("client")
    g = c.add_mutually_exclusive_group()
    g.add_argument("--ca", metavar="FILE", help="trust only this CA")
    g.add_argument("--insecure", action="store_true", help="check nothing")
    c.add_argument("--out", default=".", metavar="DIR")
    c.add_argument("--sni", help="server name to send and check")
    c.add_argument("--version", type=version, metavar="V",
                   help="version of the first attempt (v1, v2, hex)")
    c.add_argument("--session-ticket", metavar="FILE",
                   help="resume with the ticket in FILE; save the new one there")
    c.add_argument("--0rtt", dest="zerortt", action="store_true",
                   help="with --session-ticket: requests before the handshake "
                   "completes (0-RTT)")
    s.add_argument("--count-0rtt", action="store_true",
                   help="count 0-RTT packets received (qlog), print per connection")
    c.add_argument("--cid-limit", type=int, metavar="N",
                   help="advertise active_connection_id_limit N (default 8)")
    c.add_argument("urls", nargs="+", metavar="URL")
    for x in (s, c):
        x.add_argument("--alpn", default=HQ, help="hq-interop (default) or h3")
        x.add_argument("--idle-timeout", type=float, default=30.0)
        x.add_argument("--key-update", type=size, metavar="BYTES",
                       help="request a key update every BYTES (K, M, G) "
                       "of stream data received (client) or sent (server); "
                       "0: none, only count them")
        x.add_argument("--versions", type=versions, metavar="LIST",
                       help="supported versions, comma-separated (v1, v2, "
                       "hex); default v1,v2")
    z = sub.add_parser("spawner", help="fork clients and servers on request")
    z.add_argument("--dir", required=True)
    a = p.parse_args(argv)
    if a.cmd == "spawner":
        return spawner(a)
    if a.cmd == "client" and a.zerortt and not a.session_ticket:
        p.error("--0rtt needs --session-ticket")
    a.alpn = [a.alpn]
    return asyncio.run(run_server(a) if a.cmd == "server" else run_client(a))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
