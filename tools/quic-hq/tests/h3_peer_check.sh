#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# quic-hq's HTTP/3 code against real HTTP/3 peers, without the kernel: the
# h3 hooks run over aioquic's userspace QUIC (h3_over_aioquic.py, via
# h3_shim.so) against Debian's ngtcp2 examples (gtlsserver, gtlsclient,
# nghttp3 inside) and aioquic's own HTTP/3 (tests/interop/peers/
# aioquic_hq.py --alpn h3), both directions, on 127.0.0.1.  TAP.
#
#   make -C tools/quic-hq h3-peer-check
#
# Needs python3 with aioquic; the ngtcp2 cases skip without gtlsserver and
# gtlsclient (apt-get install ngtcp2-server ngtcp2-client).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../../tests/interop/lib.sh"

DRV=$HERE/h3_over_aioquic.py
AQ=$IO_DIR/peers/aioquic_hq.py
NG=$IO_DIR/peers/ngtcp2.sh
W=$IO_WORK

if ! PY=$(io_aioquic_python); then
	tap_skip "h3 vs aioquic and ngtcp2" "no python with aioquic (pip install aioquic)"
	tap_done
	exit
fi
[ -f "$HERE/h3_shim.so" ] || { echo "Bail out! build tests/h3_shim.so first"; exit 1; }
io_certs "$W/certs" || { echo "Bail out! certificates"; exit 1; }
mkdir -p "$W/www/dir"
head -c 3000000 /dev/urandom > "$W/www/big.bin"
head -c 65550 /dev/urandom > "$W/www/odd.bin"
echo hello > "$W/www/hello.txt"
: > "$W/www/empty"
echo index > "$W/www/dir/index.html"
FILES="big.bin odd.bin hello.txt empty"

# start_server NAME CMD...: in the background (on $PORT), waits for it
start_server() {
	local name=$1
	shift
	io_start "" "$W/$name.server.log" 120 "$@"
	SPID=$IO_PID
	io_wait_udp "" "$PORT" 30 "$SPID"
}

# a server's arguments, quic-hq style, on a fresh port
server_args() {
	PORT=$(io_free_udp_port)
	SARGS=(--listen "127.0.0.1:$PORT" --cert "$W/certs/server.pem"
	       --key "$W/certs/server.key" --root "$W/www")
}

# same OUT: every file of $FILES (and dir/ as index.html) arrived whole
same() {
	local f
	for f in $FILES; do
		cmp -s "$W/www/$f" "$1/$f" || { echo "# $f differs or is missing"; return 1; }
	done
	cmp -s "$W/www/dir/index.html" "$1/index.html" || { echo "# index.html differs"; return 1; }
}

urls() {	# the URLs of $FILES and dir/ on $PORT
	local f
	for f in $FILES dir/; do echo "https://127.0.0.1:$PORT/$f"; done
}

# ours as the client against a server: files, then a missing one
client_case() {	# NAME SERVER-CMD... (quic-hq's server options appended)
	local name=$1 out=$W/$1.out
	shift
	server_args
	if ! start_server "$name" "$@" "${SARGS[@]}"; then
		tap_not_ok "h3 client vs $name # server did not start"
		tail -n 5 "$W/$name.server.log" | tap_diag
		return
	fi
	# shellcheck disable=SC2046
	if "$PY" "$DRV" client --ca "$W/certs/ca.pem" --out "$out" $(urls) \
		> "$W/$name.client.log" 2>&1 && same "$out"; then
		tap_ok "h3 client (quic-hq code) vs $name server: 5 files whole"
	else
		tap_not_ok "h3 client (quic-hq code) vs $name server"
		tail -n 10 "$W/$name.client.log" | tap_diag
	fi
	if ! "$PY" "$DRV" client --ca "$W/certs/ca.pem" --out "$out" \
		"https://127.0.0.1:$PORT/missing" > "$W/$name.404.log" 2>&1 &&
	   grep -q "HTTP status 404" "$W/$name.404.log"; then
		tap_ok "h3 client (quic-hq code) vs $name server: a missing file fails with 404"
	else
		tap_not_ok "h3 client (quic-hq code) vs $name server: missing file"
		tail -n 5 "$W/$name.404.log" | tap_diag
	fi
	io_stop "$SPID"
}

# ours as the server, a client against it
server_case() {	# NAME CLIENT-CMD... (--out DIR and the URLs appended)
	local name=$1 out=$W/$1.out
	shift
	server_args
	if ! start_server "ours-$name" "$PY" "$DRV" server "${SARGS[@]}"; then
		tap_not_ok "h3 server vs $name # our server did not start"
		tail -n 5 "$W/ours-$name.server.log" | tap_diag
		return
	fi
	mkdir -p "$out"
	# shellcheck disable=SC2046
	if timeout 60 "$@" --out "$out" $(urls) > "$W/$name.client.log" 2>&1 &&
	   same "$out"; then
		tap_ok "h3 server (quic-hq code) vs $name client: 5 files whole"
	else
		tap_not_ok "h3 server (quic-hq code) vs $name client"
		tail -n 10 "$W/$name.client.log" "$W/ours-$name.server.log" | tap_diag
	fi
	io_stop "$SPID"
	if grep -q "unidirectional stream" "$W/ours-$name.server.log"; then
		tap_not_ok "h3 server vs $name client: errors on its unidirectional streams"
		grep "unidirectional" "$W/ours-$name.server.log" | head -n 3 | tap_diag
	else
		tap_ok "h3 server (quic-hq code) vs $name client: its control and QPACK streams read without error"
	fi
}

if [ -x "${NGTCP2_SERVER:-/usr/sbin/gtlsserver}" ] &&
   [ -x "${NGTCP2_CLIENT:-/usr/bin/gtlsclient}" ]; then
	client_case ngtcp2 "$NG" server
	server_case ngtcp2 "$NG" client
else
	tap_skip "h3 vs ngtcp2" "no gtlsserver/gtlsclient (apt-get install ngtcp2-server ngtcp2-client)"
fi
client_case aioquic "$PY" "$AQ" server --alpn h3
server_case aioquic "$PY" "$AQ" client --alpn h3 --ca "$W/certs/ca.pem"
tap_done
