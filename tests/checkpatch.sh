#!/bin/bash
# Kernel style: checkpatch.pl --strict on every file of net/quic, one TAP
# line per file.
set -u
cd "$(dirname "$0")/.."
cp=${CHECKPATCH:-/usr/src/linux-source-6.12/scripts/checkpatch.pl}
if [ ! -x "$cp" ]; then
	echo "not ok 1 - checkpatch.pl not found at $cp (run tests/vm/deps)"
	exit 1
fi
n=0 rc=0
for f in net/quic/*.[ch]; do
	case $f in *.mod.c) continue ;; esac
	n=$((n + 1))
	if out=$("$cp" --strict --no-tree --terse --show-types -f "$f" 2>&1) &&
	   ! grep -qE ': (WARNING|ERROR|CHECK):' <<< "$out"; then
		echo "ok $n - checkpatch --strict $f"
	else
		echo "not ok $n - checkpatch --strict $f"
		grep -E ': (WARNING|ERROR|CHECK):' <<< "$out" | sed 's/^/# /'
		rc=1
	fi
done
exit $rc
