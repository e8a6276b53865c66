#!/bin/bash
# RFC 9002 §6.2.2.1 in the guest: a server that has spent its
# anti-amplification allowance (three times what it received) sends nothing
# until the client's address is validated, so when the client's
# acknowledgment of the server's first flight is lost, only the client's
# anti-deadlock probe can get the handshake going again.
#
# quic-hq server and client in a private namespace; nftables lets the
# first datagram each way through and drops the rest until BLACKOUT
# seconds after the first drop each way.  The server's certificate makes
# its first flight exceed the allowance, so without the probe the client's
# handshake times out (30 s) however long the blackout; with it, the file
# arrives a few backed-off PTOs after the blackout.
set -u
cd "$(dirname "$0")/../.."
. tests/interop/lib.sh

QUIC_HQ=${QUIC_HQ:-tools/quic-hq/quic-hq}
NS=${IO_NS_PREFIX}ad
BLACKOUT=2	# seconds during which later datagrams are dropped
# On the debug kernel (QUIC_TEST_SLOW=4) RTTs, and the PTOs backed off
# from them, are inflated past the 30 s handshake limit: both ends then get
# --idle-timeout (also the handshake's limit) and the client's time as
# many times longer.
SLOW=${QUIC_TEST_SLOW:-1}
IDLE=$((30 * SLOW))	# handshake limit and idle timeout (30 s: the default)
LIMIT=$((60 * SLOW))	# seconds the client gets (without the probe it fails at IDLE)

echo "TAP version 13"
if ! command -v nft > /dev/null; then
	tap_skip "anti-deadlock probe" "no nft (apt install nftables)"
	tap_done
	exit
fi

io_certs "$IO_WORK/certs" || exit 1
mkdir -p "$IO_WORK/www" "$IO_WORK/out"
head -c 65536 /dev/urandom > "$IO_WORK/www/64K"
io_ns_add "$NS" || exit 1

# Once 1300 bytes have passed one way (the first datagram: 1200 bytes and
# headers), the rest is dropped and counted.
if ! ip netns exec "$NS" nft -f - <<'EOF'
table inet blackout {
	chain out {
		type filter hook output priority 0;
		udp dport 4433 quota over 1300 bytes counter drop
		udp sport 4433 quota over 1300 bytes counter drop
	}
}
EOF
then
	tap_not_ok "nft rules for the blackout"
	tap_done
	exit
fi

io_start "$NS" "$IO_WORK/server.log" $((90 * SLOW)) "$QUIC_HQ" server \
	--idle-timeout "$IDLE" \
	--listen 127.0.0.1:4433 --root "$IO_WORK/www" \
	--cert "$IO_WORK/certs/big.pem" --key "$IO_WORK/certs/big.key"
if ! io_wait_udp "$NS" 4433 $((10 * SLOW)) "$IO_PID"; then
	tap_not_ok "quic-hq server starts"
	tap_diag < "$IO_WORK/server.log"
	tap_done
	exit
fi

start=$(now)
io_start "$NS" "$IO_WORK/client.log" "$LIMIT" "$QUIC_HQ" client \
	--idle-timeout "$IDLE" \
	--ca "$IO_WORK/certs/ca.pem" --out "$IO_WORK/out" \
	https://127.0.0.1:4433/64K
client=$IO_PID
# Both drop rules have counted a packet (their listing is in $rules).
dropped_both_ways() {
	rules=$(ip netns exec "$NS" nft list table inet blackout)
	[ "$(grep -c 'counter packets [1-9]' <<< "$rules")" = 2 ]
}
# The blackout lasts BLACKOUT seconds from the first drop each way.
# (bounded in time, not in rounds: on the debug kernel a round of nft
# takes seconds)
end=$((EPOCHSECONDS + 10 * SLOW))
while [ "$EPOCHSECONDS" -lt $end ] && ! dropped_both_ways; do
	io_sleep 0.1
done
sleep "$BLACKOUT"
dropped_both_ways
dropped=$?
ip netns exec "$NS" nft delete table inet blackout
if [ $dropped = 0 ]; then
	tap_ok "blackout: later datagrams dropped both ways"
else
	tap_not_ok "blackout: later datagrams dropped both ways"
	tap_diag <<< "$rules"
fi

wait "$client"
rc=$?
t=$(elapsed "$start")
if [ $rc = 0 ] && cmp -s "$IO_WORK/www/64K" "$IO_WORK/out/64K"; then
	tap_ok "the handshake resumes after the blackout, the file arrives ($t s)"
else
	tap_not_ok "the handshake resumes after the blackout, the file arrives (exit $rc, $t s)"
	tail -5 "$IO_WORK/client.log" | tap_diag
fi
tap_done
