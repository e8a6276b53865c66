#!/bin/bash
# Reload quic.ko with selftest=1 and report its KTAP results as TAP lines.
# Leaves quic loaded without self-tests.
set -u
rmmod quic 2>/dev/null
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
rmmod quic 2>/dev/null
modprobe quic
[ $rc -eq 0 ] && [ -n "$results" ] && ! printf '%s\n' "$results" | grep -q '^not ok'
