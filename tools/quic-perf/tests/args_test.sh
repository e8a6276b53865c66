#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# quic-perf's command line, on the host (no kernel): every long option of
# args.c is in --help and in quic-perf.1, and values out of range are
# refused with exit status 2 before anything is opened.  TAP.
cd "$(dirname "$0")/.." || exit 1
n=0 failed=0
ok() {	# ok COND-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

help=$(./quic-perf --help); ok $? "--help exits 0"
man=$(sed 's/\\-/-/g' quic-perf.1)
opts=$(sed -n '/longopts\[\] = {/,/^};/s/.*{ "\([a-z0-9-]*\)".*/\1/p' args.c)
[ -n "$opts" ]; ok $? "long options found in args.c"
for o in $opts; do
	grep -qE -- "--$o([^a-z0-9-]|$)" <<<"$help"; ok $? "--$o in --help"
	grep -qE -- "--$o([^a-z0-9-]|$)" <<<"$man"; ok $? "--$o in quic-perf.1"
done

refused() {	# refused DESCRIPTION ARGS...: usage error, exit status 2
	local d=$1
	shift
	./quic-perf "$@" >/dev/null 2>&1
	[ $? = 2 ]; ok $? "refused: $d"
}
refused "no -s or -c"
refused "-s and -c" -s -c 127.0.0.1
refused "-l 0" -c 127.0.0.1 -l 0
refused "-l over 64M" -c 127.0.0.1 -l 65M
refused "-P 0" -c 127.0.0.1 -P 0
refused "-P 1025" -c 127.0.0.1 -P 1025
refused "-t with -n" -c 127.0.0.1 -t 1 -n 1M
refused "--idle 0" -c 127.0.0.1 --idle 0
refused "--idle with -n" -c 127.0.0.1 --idle 2 -n 1
refused "--cert without --key" -s --cert x.pem
refused "a negative -i" -c 127.0.0.1 -i -1
refused "-n 1X" -c 127.0.0.1 -n 1X
refused "a stray argument" -c 127.0.0.1 extra
# an option of the other side would do nothing
for a in "-t 1" "-n 1M" "-l 1K" "-P 2" "--stream-size 1M" -R --rr --handshakes \
	 "--idle 2" -J "-i 0" --insecure "--ca x.pem"; do
	refused "client option $a on the server" -s $a
done
for a in "-B 127.0.0.1" "--cert x.pem --key x.key" -1; do
	refused "server option $a on a client" -c 127.0.0.1 $a
done
# what both ends take: not a usage error (the server may even start)
timeout 2 ./quic-perf -s --nodelay --psk /nonexistent -p 1 >/dev/null 2>&1
[ $? != 2 ]; ok $? "--nodelay and --psk are taken by the server"

echo "1..$n"
echo "# quic-perf args: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
