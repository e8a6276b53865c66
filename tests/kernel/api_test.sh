#!/bin/bash
# The in-kernel API without a handshake agent (guest, quic.ko loaded):
# quic_sample.ko's selftest=1 (quic_do_setsockopt/getsockopt with kernel
# buffers, upcall refusals), a kernel client and a userspace client failing
# cleanly (an error, not a hang) when no agent answers, rmmod quic_sample
# and then rmmod quic clean; quic is loaded again at the end.
# TAP.  Needs tests/kernel/quic_sample.ko (make -C tests/kernel).
set -u
cd "$(dirname "$0")/../.."
ko=tests/kernel/quic_sample.ko
proc=/proc/quic_sample
n=0
ok() {	# ok COND-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
val() { sed -n "s/^$1: //p" $proc 2>/dev/null; }
# Bounded wait for a /proc/quic_sample value: wait_val KEY VALUE SECONDS
wait_val() {
	local i
	for i in $(seq $(($3 * 5))); do
		[ "$(val "$1")" = "$2" ] && return 0
		sleep 0.2
	done
	return 1
}
rmmod_quic() {
	local i
	for i in $(seq 50); do
		rmmod quic 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
echo "TAP version 13"
if [ ! -f $ko ]; then
	echo "1..1"
	echo "not ok 1 - $ko not built (make -C tests/kernel)"
	exit 1
fi
if pgrep -x quic-handshaked >/dev/null || pgrep -x tlshd >/dev/null; then
	echo "1..0 # SKIP a handshake agent runs: these tests need none"
	exit 0
fi
port=4471

# 1. selftest=1 and the echo server, no agent.
dmesg -C
insmod $ko selftest=1 port=$port timeout_ms=3000
ok $? "insmod quic_sample selftest=1 port=$port"
dmesg | sed -n 's/.*quic_sample: selftest: \(ok\|FAIL\): \(.*\)/\1 \2/p' |
while read -r res what; do
	echo "# selftest: $res: $what"
done
ok "$([ "$(val selftest_failed)" = 0 ] && [ "$(val selftest_passed)" = 10 ]; echo $?)" \
	"selftest: $(val selftest_passed) passed, $(val selftest_failed) failed (10 expected)"
ok "$(dmesg | grep -q 'selftest: upcall with no server: -3 '; echo $?)" \
	"upcall without an agent: -ESRCH at once"

# 2. A userspace client against the kernel server: the server's upcall
# fails (no agent), the connection is closed, the client gives up.
timeout 20 tools/quic-hq/quic-hq client --insecure \
	"https://127.0.0.1:$port/x" >/dev/null 2>&1
ok "$([ "$(val handshakes_failed)" -ge 1 ] 2>/dev/null &&
	[ "$(val last_handshake_status)" = -3 ]; echo $?)" \
	"server: handshake without an agent fails (-ESRCH), counted"
ok "$(wait_val conns_active 0 10; echo $?)" "server: the failed connection is closed"
rmmod quic_sample
ok $? "rmmod quic_sample"

# 3. The kernel client, no agent: an error, not a hang.
insmod $ko port=$port client=127.0.0.1:$port timeout_ms=3000
ok $? "insmod quic_sample port=$port client=127.0.0.1:$port"
wait_val client_state done 15
ok $? "client: done within 15 s"
ok "$([ "$(val client_handshake_status)" = -3 ] && [ "$(val client_status)" = -3 ]; echo $?)" \
	"client: handshake -ESRCH reported (status $(val client_status))"

# 4. Unload: quic_sample with its listener, then quic itself.
rmmod quic_sample
ok $? "rmmod quic_sample with a listener"
ok "$([ ! -e $proc ]; echo $?)" "/proc/quic_sample removed"
rmmod_quic
ok $? "rmmod quic after quic_sample"
modprobe quic
ok $? "modprobe quic again"
echo "1..$n"
