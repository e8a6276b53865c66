#!/bin/bash
# RFC 9002 §6.2.4 in the guest: a PTO probe carries the oldest
# unacknowledged data, even when new data is waiting to be sent.
#
# quic-hq server and client in a private namespace.  nftables lets the
# first QUOTA bytes from the server through, then drops everything the
# server sends: its packets after that point are never acknowledged, so no
# loss can be detected from an ACK and only PTO probes can send stream data
# again.  The server still has most of the file to send (new data), so a
# probe that prefers new data adds nothing to stream_frames_retransmitted
# (/proc/net/quic_stats) during the blackout; one that carries the oldest
# data in flight does.  Then the path opens and the file must arrive.
set -u
cd "$(dirname "$0")/../.."
. tests/interop/lib.sh

QUIC_HQ=${QUIC_HQ:-tools/quic-hq/quic-hq}
NS=${IO_NS_PREFIX}pto
QUOTA=200000	# bytes the server may send before the blackout
PTOS=3		# PTOs waited for during the blackout
# On the debug kernel (QUIC_TEST_SLOW=4) the RTT, and the PTOs backed off
# from it, are inflated until the blackout outlasts the 30 s idle timeout:
# both ends then get --idle-timeout and the client's time as many times
# longer.
SLOW=${QUIC_TEST_SLOW:-1}
IDLE=$((30 * SLOW))	# idle timeout (30 s: the default)
LIMIT=$((90 * SLOW))	# seconds the client gets

echo "TAP version 13"
if ! command -v nft > /dev/null; then
	tap_skip "PTO probes carry the oldest data" "no nft (apt install nftables)"
	tap_done
	exit
fi

io_certs "$IO_WORK/certs" || exit 1
mkdir -p "$IO_WORK/www" "$IO_WORK/out"
head -c 4M /dev/urandom > "$IO_WORK/www/4M"
io_ns_add "$NS" || exit 1
# A 20 ms RTT, so that the transfer is still going when the quota runs out.
ip netns exec "$NS" tc qdisc add dev lo root netem delay 10ms 2>/dev/null

if ! ip netns exec "$NS" nft -f - <<EOT
table inet blackout {
	chain out {
		type filter hook output priority 0;
		udp sport 4433 quota over $QUOTA bytes counter drop
	}
}
EOT
then
	tap_not_ok "nft rules for the blackout"
	tap_done
	exit
fi

retx0=$(io_quic_stat stream_frames_retransmitted)
io_start "$NS" "$IO_WORK/server.log" "$LIMIT" "$QUIC_HQ" server \
	--idle-timeout "$IDLE" \
	--listen 127.0.0.1:4433 --root "$IO_WORK/www" \
	--cert "$IO_WORK/certs/server.pem" --key "$IO_WORK/certs/server.key"
if ! io_wait_udp "$NS" 4433 $((10 * SLOW)) "$IO_PID"; then
	tap_not_ok "quic-hq server starts"
	tap_diag < "$IO_WORK/server.log"
	tap_done
	exit
fi
io_start "$NS" "$IO_WORK/client.log" "$LIMIT" "$QUIC_HQ" client \
	--idle-timeout "$IDLE" \
	--ca "$IO_WORK/certs/ca.pem" --out "$IO_WORK/out" \
	https://127.0.0.1:4433/4M
client=$IO_PID

dropping() {
	ip netns exec "$NS" nft list table inet blackout |
		grep -q 'counter packets [1-9]'
}
# Each wait is bounded in time, not in rounds: on the debug kernel a
# round (nft, io_quic_stat) takes seconds.
end=$((EPOCHSECONDS + 30 * SLOW))
while [ "$EPOCHSECONDS" -lt $end ] && ! dropping; do
	io_sleep 0.1
done
pto0=$(io_quic_stat pto_expired)
end=$((EPOCHSECONDS + 30 * SLOW))
while [ "$EPOCHSECONDS" -lt $end ] &&
      [ $(( $(io_quic_stat pto_expired) - pto0 )) -lt $PTOS ]; do
	io_sleep 0.1
done
ptos=$(( $(io_quic_stat pto_expired) - pto0 ))
retx=$(( $(io_quic_stat stream_frames_retransmitted) - retx0 ))
ip netns exec "$NS" nft delete table inet blackout

if [ $ptos -ge $PTOS ] && [ $retx -gt 0 ]; then
	tap_ok "PTO probes resend the oldest stream data with new data waiting ($ptos PTOs, $retx STREAM frames resent)"
else
	tap_not_ok "PTO probes resend the oldest stream data with new data waiting ($ptos PTOs, $retx STREAM frames resent)"
fi

start=$(now)
wait "$client"
rc=$?
if [ $rc = 0 ] && cmp -s "$IO_WORK/www/4M" "$IO_WORK/out/4M"; then
	tap_ok "the file arrives after the blackout ($(elapsed "$start") s)"
else
	tap_not_ok "the file arrives after the blackout (exit $rc)"
	tail -5 "$IO_WORK/client.log" | tap_diag
fi
tap_done
