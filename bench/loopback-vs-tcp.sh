#!/bin/bash
# Benchmark (not a test): one 50 MB file over loopback in the guest, by
# quic-hq (QUIC on quic.ko, TLS 1.3 AES-128-GCM) and by TCP (socat, plain,
# no encryption), side by side in one boot.  Prints MB/s of each and their
# ratio.  Absolute numbers under TCG are slow and noisy; the ratio is the
# result.
#
#   tests/vm/run -- bench/loopback-vs-tcp.sh [SIZE_MB]
set -eu
cd "$(dirname "$0")/.."
mb=${1:-50}
work=$(mktemp -d /tmp/bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
. tests/interop/lib.sh
io_certs "$work/certs" > /dev/null
mkdir -p "$work/www" "$work/out"
head -c $((mb * 1048576)) /dev/urandom > "$work/www/file"
now() { date +%s.%N; }
rate() { awk -v b="$1" -v t0="$2" -v t1="$3" 'BEGIN { printf "%.2f", b / 1048576 / (t1 - t0) }'; }
bytes=$((mb * 1048576))

# TCP: socat from the file to a socat writing /dev/null.
socat -u TCP-LISTEN:5001,reuseaddr,bind=127.0.0.1 OPEN:/dev/null &
sleep 0.5
t0=$(now)
socat -u OPEN:"$work/www/file" TCP:127.0.0.1:5001
wait
t1=$(now)
tcp=$(rate $bytes "$t0" "$t1")

# QUIC: quic-hq client downloads the file (handshake included).
tools/quic-hq/quic-hq server --listen 127.0.0.1:4433 --cert "$work/certs/server.pem" \
	--key "$work/certs/server.key" --root "$work/www" > "$work/server.log" 2>&1 &
sleep 0.5
t0=$(now)
tools/quic-hq/quic-hq client --ca "$work/certs/ca.pem" --out "$work/out" \
	https://localhost:4433/file > "$work/client.log"
t1=$(now)
cmp -s "$work/www/file" "$work/out/file" || { echo "bench: QUIC file differs" >&2; exit 1; }
quic=$(rate $bytes "$t0" "$t1")

echo "loopback ${mb} MB: TCP $tcp MB/s, QUIC $quic MB/s, QUIC/TCP $(awk -v q="$quic" -v t="$tcp" 'BEGIN { printf "%.3f", q / t }')"
