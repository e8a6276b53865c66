#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hostile_peer against a quic-hq server on quic.ko, in the guest: each
# attack in turn (or those named), a PING connection running beside the
# stream and CID floods, the kernel log and the server's sockets checked
# after.  Two more cases test the client itself: handshake-big (a
# certificate chain that takes several packets and more than 3x the
# client's first datagram) and handshake-lossy (5% loss each way through
# netem, so that both ends retransmit).  A smoke test of the attacking
# client for its author; the suite proper is tests/hostile/run.
#
#   flock /tmp/vm.lock tests/vm/run -- tests/hostile/peer_smoke.sh [ATTACK...]
#
# Environment: SMOKE_RMEM and SMOKE_WMEM set net.quic.rmem_default and
# wmem_default for the run (tests/hostile/run uses 131072 and 65536);
# SMOKE_ARGS are passed to every attack (e.g. "--max-charge 1048576").
# The output of each attack is indented under its own TAP line.
set -u
. "$(dirname "$0")/../interop/lib.sh"

HP=$IO_REPO/tests/hostile/hostile_peer
QUIC_HQ=$IO_REPO/tools/quic-hq/quic-hq
ATTACKS=("$@")
[ ${#ATTACKS[@]} -gt 0 ] || ATTACKS=(handshake handshake-big handshake-lossy ping
	crypto-flood path-challenge-flood bogus-ack stream-exhaust cid-flood
	event-exhaust amplification)
read -r -a EXTRA <<< "${SMOKE_ARGS:-}"

[ -x "$HP" ] || { echo "peer_smoke: build $HP first (make -C tests/hostile)" >&2; exit 2; }
[ -x "$QUIC_HQ" ] || { echo "peer_smoke: build $QUIC_HQ first" >&2; exit 2; }

[ -n "${SMOKE_RMEM:-}" ] && io_sysctl net.quic.rmem_default "$SMOKE_RMEM"
[ -n "${SMOKE_WMEM:-}" ] && io_sysctl net.quic.wmem_default "$SMOKE_WMEM"
io_certs "$IO_WORK/certs" || exit 1
io_files "$IO_WORK/www" f2m 2M 1 > /dev/null || exit 1
sum=$(cut -d' ' -f1 "$IO_WORK/www/f2m.sha256")
port=$(io_free_udp_port)
server=127.0.0.1:$port
io_start "" "$IO_WORK/server.log" 3600 "$QUIC_HQ" server --alpn hq-interop \
	--listen "$server" --cert "$IO_WORK/certs/server.pem" \
	--key "$IO_WORK/certs/server.key" --root "$IO_WORK/www"
srv=$IO_PID
io_wait_udp "" "$port" 60 "$srv" || { cat "$IO_WORK/server.log"; exit 1; }
slab0=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
tap_note "server $server, slab ${slab0} kB, $(nproc) CPUs"

# run NAME NS SERVER ATTACK [ARGS...]: one hostile_peer run in namespace
# NS ("" = this one), its output indented
run_at() {
	local name=$1 ns=$2 to=$3 a=$4 t0 rc
	shift 4
	t0=$(now)
	io_in "$ns" timeout -k 5 600 "$HP" "$a" --server "$to" "${EXTRA[@]}" "$@" \
		> "$IO_WORK/$name.out" 2> "$IO_WORK/$name.err"
	rc=$?
	sed 's/^/    /' "$IO_WORK/$name.out"
	[ -s "$IO_WORK/$name.err" ] && tail -n 20 "$IO_WORK/$name.err" | tap_diag
	if [ $rc -eq 0 ]; then
		tap_ok "$name: hostile_peer $a $* ($(elapsed "$t0") s)"
	else
		tap_not_ok "$name: hostile_peer $a $* ($(elapsed "$t0") s, status $rc)"
	fi
}

run() { run_at "$1" "" "$server" "$@"; }

# another_server NS LISTEN CERT: a quic-hq server for one case; sets IO_PID
another_server() {
	io_start "$1" "$IO_WORK/server-$2.log" 600 "$QUIC_HQ" server \
		--alpn hq-interop --listen "$2" --cert "$IO_WORK/certs/$3.pem" \
		--key "$IO_WORK/certs/$3.key" --root "$IO_WORK/www"
	io_wait_udp "$1" "${2##*:}" 60 "$IO_PID"
}

for a in "${ATTACKS[@]}"; do
	case $a in
	handshake) run handshake --path /f2m --size $((2 << 20)) --sha256 "$sum" ;;
	handshake-big)
		p2=$(io_free_udp_port)
		if another_server "" "127.0.0.1:$p2" big; then
			run_at "$a" "" "127.0.0.1:$p2" handshake --path /f2m --sha256 "$sum"
		else
			tap_not_ok "$a: a server with the big certificate"
		fi
		io_stop "$IO_PID"
		;;
	handshake-lossy)
		if ! io_have_netem; then
			tap_skip "$a" "no netem here"
			continue
		fi
		io_pair hps$$ hpc$$ loss 5% &&
		another_server hps$$ 10.99.0.1:4433 server &&
			run_at "$a" hpc$$ 10.99.0.1:4433 handshake --path /f2m --sha256 "$sum" ||
			tap_not_ok "$a: set up"
		io_stop "$IO_PID"
		io_ns_del hps$$ hpc$$
		;;
	bogus-ack) run bogus-ack --path /f2m ;;
	stream-exhaust|cid-flood)
		# a PING connection beside it: the server stays responsive
		"$HP" ping --server "$server" --duration 20 > "$IO_WORK/ping-$a.out" 2>&1 &
		pid=$!
		run "$a"
		wait $pid
		prc=$?
		sed 's/^/    /' "$IO_WORK/ping-$a.out"
		if [ $prc -eq 0 ]; then tap_ok "PING during $a"; else tap_not_ok "PING during $a"; fi
		;;
	*) run "$a" ;;
	esac
	tap_note "after $a: slab $(awk '/^Slab:/ { print $2 }' /proc/meminfo) kB," \
		"$(($(wc -l < /proc/net/quic) - 1)) QUIC sockets"
done

if kill -0 "$srv" 2>/dev/null; then tap_ok "the server is still running"; else tap_not_ok "the server is still running"; fi
io_stop "$srv"
tap_note "quic-hq server log (last lines):"
tail -n 20 "$IO_WORK/server.log" | tap_diag
grep -v '^local' /proc/net/quic | tap_diag
{ tr "\n" " " < /proc/net/quic_stats; echo; } | fold -w 200 | tap_diag
tap_done
