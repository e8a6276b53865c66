#!/bin/bash
# make demo, inside the guest: quic.ko loaded, then a real QUIC connection
# between quic-hq's client and server on loopback: TLS 1.3 handshake
# (libquic), a 20 MB file and 50 files of 64 KB downloaded on concurrent
# streams, every file checked with SHA-256.
set -eu
cd "$(dirname "$0")/.."
. tests/interop/lib.sh
work=$(mktemp -d /tmp/demo.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

echo "guest kernel: $(uname -r)"
echo "module:       $(grep '^quic ' /proc/modules)"
dmesg | grep -i 'quic:' | sed 's/^/  /'

io_certs "$work/certs" > /dev/null
mkdir -p "$work/www" "$work/out"
head -c 20971520 /dev/urandom > "$work/www/big"
for i in $(seq 50); do head -c 65536 /dev/urandom > "$work/www/small$i"; done

echo
echo "quic-hq server on 127.0.0.1:4433 (certificate for localhost from a test CA):"
tools/quic-hq/quic-hq server --listen 127.0.0.1:4433 --cert "$work/certs/server.pem" \
	--key "$work/certs/server.key" --root "$work/www" > "$work/server.log" 2>&1 &
sleep 1
urls=(https://localhost:4433/big)
for i in $(seq 50); do urls+=("https://localhost:4433/small$i"); done
echo "quic-hq client, verifying the server against the CA, 51 files on one connection:"
QUIC_LOG=1 tools/quic-hq/quic-hq client --ca "$work/certs/ca.pem" --out "$work/out" "${urls[@]}" |
	sed 's/^/  /'
bad=0
for f in big $(seq -f small%g 50); do
	[ "$(sha256sum < "$work/www/$f")" = "$(sha256sum < "$work/out/$f")" ] || bad=$((bad + 1))
done
sleep 0.5
sed 's/^/  /' "$work/server.log"
echo "SHA-256 of all 51 files match: $([ $bad = 0 ] && echo yes || echo "NO, $bad differ")"
echo
echo "counters (/proc/net/quic_stats):"
grep -v ' 0$' /proc/net/quic_stats | sed 's/^/  /'
[ $bad = 0 ]
