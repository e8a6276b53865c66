#!/bin/bash
# Reload quic.ko with selftest=1 and report its KTAP results as TAP lines.
# Leaves quic loaded without self-tests.
set -u
# Connections closed by earlier tests keep their socket (and the module)
# for their closing period, a few PTOs: wait for them.
rmmod_wait() {
	local i
	for i in $(seq 50); do
		rmmod quic 2>/dev/null && return 0
		grep -q '^quic ' /proc/modules || return 0
		sleep 0.2
	done
	return 1
}
rmmod_wait
dmesg -C
modprobe quic selftest=1
rc=$?
log=$(dmesg)
# Flat KTAP: "ok N name" / "not ok N name", after "KTAP version 1".
results=$(printf '%s\n' "$log" | sed -n 's/^\[[^]]*\] //; /^KTAP version 1/,$p' |
	grep -E '^(not )?ok [0-9]+ ')
echo "# quic.ko selftest=1 (modprobe exit $rc)"
if [ -z "$results" ]; then
	echo "not ok 1 - quic.ko printed no KTAP results"
else
	printf '%s\n' "$results" | sed -E 's/^((not )?ok [0-9]+) /\1 - ktap: /'
fi
printf '%s\n' "$log" | grep -E '^\[[^]]*\] # quic selftest' | sed 's/^\[[^]]*\] //'
rmmod_wait
modprobe quic
[ $rc -eq 0 ] && [ -n "$results" ] && ! printf '%s\n' "$results" | grep -q '^not ok'
