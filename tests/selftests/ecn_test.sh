#!/bin/bash
# ECN in the guest (RFC 9000 §13.4, RFC 9002 §7.1; net/quic/ecn.h): a
# quic-hq server and client in two namespaces joined by a veth pair, with
# nftables counting the ECN field of the packets each side sends (chain
# "out", before any rewrite) and rewriting it on the path (chain "post").
#
#   plain	both sides send ECT(0) past the ten test packets (so the
#		peer's ACK_ECN counts validated ECN: "capable"); no CE, no
#		validation failure; IPv4 and IPv6
#   ce		the server's packets arrive CE: the client counts them, the
#		server's congestion controller reacts (congestion events
#		from ECN-CE, none in the plain run), the file is intact
#   bleach	the server's packets arrive Not-ECT: the client's ACKs
#		have no counts, the server's validation fails and it stops
#		marking (at most the ten test packets ECT(0)); file intact
#   off		net.quic.ecn = 0: no ECT(0) packet either way
#
# The counters are those of /proc/net/quic_stats (module-wide: nothing
# else runs meanwhile) and of the nft rules.
set -u
cd "$(dirname "$0")/../.."
. tests/interop/lib.sh

QUIC_HQ=${QUIC_HQ:-tools/quic-hq/quic-hq}
NS_S=${IO_NS_PREFIX}es
NS_C=${IO_NS_PREFIX}ec
SIZE=512K
TEST_PKTS=10	# QUIC_ECN_TEST_PKTS

echo "TAP version 13"
if ! command -v nft > /dev/null; then
	tap_skip "ECN" "no nft (apt install nftables)"
	tap_done
	exit
fi
io_certs "$IO_WORK/certs" || exit 1
io_files "$IO_WORK/www" f "$SIZE" 1 > /dev/null || exit 1
if ! io_pair "$NS_S" "$NS_C"; then
	tap_not_ok "two namespaces with a veth pair"
	tap_done
	exit
fi

# The "out" counters of the table in NS: ect0 ce (all of ip and ip6).
nft_counts() {
	ip netns exec "$1" nft list chain inet qecn out | awk '
		/ecn ect0/ { for (i = 1; i < NF; i++) if ($i == "packets") e += $(i + 1) }
		/ecn ce/ { for (i = 1; i < NF; i++) if ($i == "packets") c += $(i + 1) }
		END { print e + 0, c + 0 }'
}

# nft_setup NS PORT_MATCH REWRITE: the table in NS, counting what leaves
# with PORT_MATCH (e.g. "udp sport 4433") and then applying REWRITE
# ("", or nft statements such as "ip ecn set ce ip6 ecn set ce").
nft_setup() {
	local ns=$1 match=$2 rw=$3 post=""
	ip netns exec "$ns" nft delete table inet qecn 2> /dev/null
	if [ -n "$rw" ]; then
		post="$match meta nfproto ipv4 ip ecn != not-ect ip ecn set ${rw}
		$match meta nfproto ipv6 ip6 ecn != not-ect ip6 ecn set ${rw}"
	fi
	ip netns exec "$ns" nft -f - <<EOF
table inet qecn {
	chain out {
		type filter hook output priority -150;
		$match ip ecn ect0 counter
		$match ip6 ecn ect0 counter
		$match ip ecn ce counter
		$match ip6 ecn ce counter
	}
	chain post {
		type filter hook postrouting priority 0;
		$post
	}
}
EOF
}

# run NAME ADDR REWRITE: one download from the server at ADDR with the
# server's packets rewritten (REWRITE: "", ce or not-ect); sets the
# deltas d_ect0 d_ce d_events d_failed (stats), s_ect0 c_ect0 (nft) and ok.
run() {
	local name=$1 addr=$2 rw=$3 url start t rc s0 s1 s2 s3 sn cn
	rm -rf "$IO_WORK/out"
	mkdir -p "$IO_WORK/out"
	ok=1 d_ect0=0 d_ce=0 d_events=0 d_failed=0 s_ect0=0 c_ect0=0
	nft_setup "$NS_S" "udp sport 4433" "$rw" &&
	nft_setup "$NS_C" "udp dport 4433" "" || { ok=0; return; }
	s0=$(io_quic_stat ecn_ect0_sent) s1=$(io_quic_stat ecn_ce_received)
	s2=$(io_quic_stat ecn_ce_congestion_events) s3=$(io_quic_stat ecn_validation_failed)
	url=https://$addr:4433/f
	[[ $addr == *:* ]] && url="https://[$addr]:4433/f"
	start=$(now)
	io_start "$NS_C" "$IO_WORK/client.log" 60 "$QUIC_HQ" client \
		--alpn "${ALPN:-hq-interop}" \
		--ca "$IO_WORK/certs/ca.pem" --out "$IO_WORK/out" "$url"
	wait "$IO_PID"
	rc=$?
	t=$(elapsed "$start")
	d_ect0=$(( $(io_quic_stat ecn_ect0_sent) - s0 ))
	d_ce=$(( $(io_quic_stat ecn_ce_received) - s1 ))
	d_events=$(( $(io_quic_stat ecn_ce_congestion_events) - s2 ))
	d_failed=$(( $(io_quic_stat ecn_validation_failed) - s3 ))
	read -r s_ect0 sn <<< "$(nft_counts "$NS_S")"
	read -r c_ect0 cn <<< "$(nft_counts "$NS_C")"
	tap_note "$name: $t s, exit $rc; stats: ect0 sent $d_ect0, CE received $d_ce, CE events $d_events, failed $d_failed; nft ECT(0) from server $s_ect0, from client $c_ect0, CE $sn/$cn"
	if [ $rc != 0 ] || ! io_check_files "$IO_WORK/www" f "$IO_WORK/out" > /dev/null; then
		ok=0
		tail -5 "$IO_WORK/client.log" | tap_diag
	fi
}

check() {	# NAME CONDITION...
	local name=$1
	shift
	if [ "$ok" = 1 ] && "$@"; then
		tap_ok "$name"
	else
		tap_not_ok "$name"
	fi
}

# start_server NAME CMD...: a server in NS_S on port 4433; sets SRV.
start_server() {
	local name=$1 log=$IO_WORK/$1.log
	shift
	io_start "$NS_S" "$log" 600 "$@"
	SRV=$IO_PID
	io_wait_udp "$NS_S" 4433 20 "$SRV" && return 0
	tap_not_ok "$name server starts"
	tap_diag < "$log"
	return 1
}

start_server quic-hq "$QUIC_HQ" server --listen "[::]:4433" \
	--root "$IO_WORK/www" --cert "$IO_WORK/certs/server.pem" \
	--key "$IO_WORK/certs/server.key" || { tap_done; exit; }
io_sysctl net.quic.ecn 1

for a in 10.99.0.1 fd99::1; do
	run "plain $a" "$a" ""
	check "plain ($a): ECT(0) on the wire both ways past the test packets, validated, no CE, file intact" \
		test "$s_ect0" -gt $TEST_PKTS -a "$c_ect0" -gt $TEST_PKTS \
		-a "$d_ect0" -ge $((s_ect0 + c_ect0)) -a "$d_failed" = 0 \
		-a "$d_ce" = 0 -a "$d_events" = 0
done

run "ce" 10.99.0.1 ce
check "CE on the path: the client counts it, the server's window reacts, file intact" \
	test "$d_ce" -gt 0 -a "$d_events" -gt 0 -a "$d_failed" = 0

run "bleach" 10.99.0.1 not-ect
check "ECN bleached on the path: validation fails, the server stops marking, file intact" \
	test "$d_failed" -ge 1 -a "$s_ect0" -le $TEST_PKTS -a "$s_ect0" -gt 0

io_sysctl net.quic.ecn 0
run "off" 10.99.0.1 ""
check "net.quic.ecn = 0: no ECT(0) packet either way, file intact" \
	test "$s_ect0" = 0 -a "$c_ect0" = 0 -a "$d_ect0" = 0
io_sysctl net.quic.ecn 1

# Interop (the interop runner's "ecn" check): Debian's ngtcp2 server
# (h3 only) reports the ECN counts of our ECT(0) packets, so our client's
# validation succeeds, and marks its own packets, which we count.
io_stop "$SRV"
NG=tests/interop/peers/ngtcp2.sh
if [ ! -x "${NGTCP2_SERVER:-/usr/sbin/gtlsserver}" ]; then
	tap_skip "ngtcp2 server: ECN validated both ways, file intact" "no gtlsserver (apt-get install ngtcp2-server)"
elif start_server ngtcp2 "$NG" server --listen 10.99.0.1:4433 \
	--root "$IO_WORK/www" --cert "$IO_WORK/certs/server.pem" \
	--key "$IO_WORK/certs/server.key"; then
	ALPN=h3 run "ngtcp2" 10.99.0.1 ""
	check "ngtcp2 server: it reports our ECT(0) (validated), its packets are ECT(0) too, file intact" \
		test "$c_ect0" -gt $TEST_PKTS -a "$d_failed" = 0 -a "$s_ect0" -gt 0
fi
tap_done
