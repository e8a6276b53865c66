#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# quic-hq --help names every option that args.c takes.  TAP.
cd "$(dirname "$0")/.." || exit 1
n=0 failed=0
ok() {	# ok EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

help=$(./quic-hq --help); ok $? "quic-hq --help exits 0"
opts=$(grep -o 'strcmp(a, "--[a-z0-9-]*")' args.c | grep -o -- '--[a-z0-9-]*' | sort -u)
[ -n "$opts" ]; ok $? "options found in args.c"
for o in $opts; do
	grep -qE -- "$o([^a-z0-9-]|$)" <<<"$help"; ok $? "$o in --help"
done
./quic-hq client --bogus >/dev/null 2>&1
[ $? = 2 ]; ok $? "an unknown option: exit status 2"
./quic-hq >/dev/null 2>&1
[ $? = 2 ]; ok $? "no command: exit status 2"

echo "1..$n"
[ "$failed" = 0 ]
