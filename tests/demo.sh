#!/bin/bash
# make demo, inside the guest: show quic.ko loaded and a QUIC socket bound.
set -eu
echo "guest kernel: $(uname -r)"
echo "module:       $(grep '^quic ' /proc/modules)"
/usr/bin/python3 - <<'PY'
import socket
for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    s = socket.socket(fam, socket.SOCK_DGRAM, 261)   # IPPROTO_QUIC
    s.bind((host, 0))
    print(f"QUIC socket {s.fileno()}: {fam.name} bound to {s.getsockname()[:2]}")
    s.close()
PY
echo "quic.ko log:"
dmesg | grep -i 'quic:' | sed 's/^/  /'
echo
echo "TLS 1.3 handshakes between two kernel QUIC sockets on loopback (libquic, PSK):"
QUIC_LOG=2 tests/selftests/handshake_test 2>&1 | grep -E 'handshake complete|ALPN|^(not )?ok' | sed 's/^/  /'
