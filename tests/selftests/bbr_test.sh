#!/bin/bash
# BBR (net/quic/cong_bbr.c) in the guest, chosen both ways a connection
# can get it:
#   - sysctl net.quic.congestion_control=2 (the default of new
#     connections); 3 is refused;
#   - QUIC_SOCKOPT_CONFIG congestion_control_algo on the listener
#     (quic-hq server --cc bbr), with the sysctl at CUBIC.
# Also the sysctl net.quic.hystart (HyStart++ for NewReno and CUBIC,
# cong.c; its effect is unit-tested): it takes 0 and 1 and refuses
# others with EINVAL.
# Each moves a file over two namespaces with netem "delay 10ms loss 1%
# rate 20mbit" on both ends (the rate, so that there is a bottleneck to
# find and the transfer lasts long enough to be watched) and asserts that
# it arrives intact, that /proc/net/quic showed the server's connection
# running "bbr" and that its state left Startup (drain, probe_bw or
# probe_rtt seen).  No speed target: speed is bench/loss's.
set -u
cd "$(dirname "$0")/../.."
. tests/interop/lib.sh

QUIC_HQ=${QUIC_HQ:-tools/quic-hq/quic-hq}
S=${IO_NS_PREFIX}bbrs C=${IO_NS_PREFIX}bbrc
SYSCTL=/proc/sys/net/quic/congestion_control
MB=4
LIMIT=120	# seconds a transfer gets

echo "TAP version 13"
if [ ! -w "$SYSCTL" ]; then
	tap_skip "BBR" "no $SYSCTL"
	tap_done
	exit
fi
HYSTART=/proc/sys/net/quic/hystart
saved=$(cat "$SYSCTL") hs_saved=$(cat "$HYSTART" 2>/dev/null)
restore() {
	echo "$saved" > "$SYSCTL"
	[ -z "$hs_saved" ] || echo "$hs_saved" > "$HYSTART"
}
trap 'restore; io_cleanup' EXIT

if echo 2 > "$SYSCTL" 2>/dev/null && [ "$(cat "$SYSCTL")" = 2 ] &&
   ! echo 3 > "$SYSCTL" 2>/dev/null && [ "$(cat "$SYSCTL")" = 2 ]; then
	tap_ok "sysctl congestion_control takes 2 (BBR) and refuses 3"
else
	tap_not_ok "sysctl congestion_control takes 2 (BBR) and refuses 3 (reads $(cat "$SYSCTL"))"
fi

# sysctl VALUE: write it, the error of the write ("" if none)
sysctl_write() {
	local err
	err=$( (echo "$1" > "$HYSTART") 2>&1) && return 0
	echo "${err##*: }"
}
hs=
[ "$hs_saved" = 1 ] || hs="default $hs_saved, not 1; "
for v in 0 1; do
	e=$(sysctl_write $v)
	[ -z "$e" ] && [ "$(cat "$HYSTART")" = $v ] || hs="$hs$v: ${e:-reads $(cat "$HYSTART")}; "
done
for v in 2 -1; do
	e=$(sysctl_write $v)
	[ "$e" = "Invalid argument" ] && [ "$(cat "$HYSTART")" = 1 ] ||
		hs="$hs$v: ${e:-taken}, reads $(cat "$HYSTART"); "
done
if [ -z "$hs" ]; then
	tap_ok "sysctl hystart: default 1, takes 0 and 1, refuses 2 and -1 (EINVAL)"
else
	tap_not_ok "sysctl hystart: default 1, takes 0 and 1, refuses 2 and -1 (EINVAL): $hs"
fi

io_certs "$IO_WORK/certs" || exit 1
mkdir -p "$IO_WORK/www"
head -c "$((MB * 1024 * 1024))" /dev/urandom > "$IO_WORK/www/file"
io_pair "$S" "$C" delay 10ms loss 1% rate 20mbit || { tap_not_ok "netns pair"; tap_done; exit; }

# transfer NAME SERVER_ARGS...: one download; the server's cong and
# cong_state columns of /proc/net/quic sampled meanwhile
transfer() {
	local name=$1 srv client rc states t0
	shift
	rm -rf "$IO_WORK/out" && mkdir -p "$IO_WORK/out"
	: > "$IO_WORK/states"
	io_start "$S" "$IO_WORK/server.log" $((LIMIT + 10)) "$QUIC_HQ" server \
		--alpn h3 --listen 10.99.0.1:4433 --root "$IO_WORK/www" \
		--cert "$IO_WORK/certs/server.pem" --key "$IO_WORK/certs/server.key" "$@"
	srv=$IO_PID
	if ! io_wait_udp "$S" 4433 30 "$srv"; then
		tap_not_ok "$name: quic-hq server starts"
		tap_diag < "$IO_WORK/server.log"
		return
	fi
	io_start "$C" "$IO_WORK/client.log" "$LIMIT" "$QUIC_HQ" client --alpn h3 \
		--ca "$IO_WORK/certs/ca.pem" --out "$IO_WORK/out" \
		https://10.99.0.1:4433/file
	client=$IO_PID
	t0=$(now)
	while kill -0 "$client" 2>/dev/null; do
		# established server connections: cong and cong_state
		ip netns exec "$S" awk 'NR > 1 && $3 == 1 && $4 == 1 { print $(NF - 1), $NF }' \
			/proc/net/quic >> "$IO_WORK/states"
		sleep 0.1
	done
	wait "$client"
	rc=$?
	io_stop "$srv"
	states=$(sort "$IO_WORK/states" | uniq -c | awk '{ printf "%s%s %s: %d", (NR > 1 ? ", " : ""), $2, $3, $1 }')
	if [ $rc = 0 ] && cmp -s "$IO_WORK/www/file" "$IO_WORK/out/file"; then
		tap_ok "$name: $MB MB arrive intact at 1% loss ($(elapsed "$t0") s)"
	else
		tap_not_ok "$name: $MB MB arrive intact at 1% loss (exit $rc)"
		tail -5 "$IO_WORK/client.log" | tap_diag
	fi
	if [ -s "$IO_WORK/states" ] && ! grep -qv '^bbr ' "$IO_WORK/states"; then
		tap_ok "$name: the connection runs BBR ($states)"
	else
		tap_not_ok "$name: the connection runs BBR ($states)"
	fi
	if grep -Eq '^bbr (drain|probe_bw|probe_rtt)$' "$IO_WORK/states"; then
		tap_ok "$name: BBR left Startup"
	else
		tap_not_ok "$name: BBR left Startup ($states)"
	fi
}

transfer "sysctl 2"
echo 1 > "$SYSCTL"
transfer "setsockopt BBR, sysctl CUBIC" --cc bbr
tap_done
