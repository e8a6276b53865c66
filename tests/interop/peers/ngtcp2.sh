#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian's ngtcp2 examples behind the same command line as quic-hq and
# aioquic_hq.py, for tests/interop:
#
#   ngtcp2.sh server [--retry] [--versions LIST] --listen ADDR:PORT
#                    --cert F --key F --root DIR [--qlog-dir D]
#   ngtcp2.sh client [--ca F | --insecure] [--key-update DURATION]
#                    [--change-local-addr DURATION [--nat-rebinding]]
#                    [--token-file F] [--version V] [--versions LIST]
#                    [--available-versions LIST]
#                    [--session-file F [--0rtt]] --out DIR URL...
#   ngtcp2.sh alpn        prints the ALPN the binaries speak
#
# --key-update DURATION is gtlsclient's --key-update=DURATION: one 1-RTT key
# update (RFC 9001 6), DURATION after the handshake completed (ngtcp2's
# duration syntax: a number with h, m, s, ms, us or ns; no unit: seconds).
# It counts nothing: the peer has to tell whether the update happened.
# --change-local-addr DURATION is gtlsclient's: DURATION after the
# handshake it sends from a new local address (path validation first);
# with --nat-rebinding it does so as a NAT would, without validating.
# --retry is gtlsserver's --validate-addr (a Retry to every new client, and
# it accepts the tokens of its NEW_TOKEN frames instead); --token-file F is
# gtlsclient's --token-file=F: the token in F goes in the Initial, and the
# one of the server's NEW_TOKEN is written there.
# --version V is gtlsclient's -v (the version of its first Initial, v1, v2
# or hex, possibly one nobody speaks), --versions LIST its
# --preferred-versions (what it picks from a Version Negotiation packet),
# --available-versions LIST its --available-versions (version_information:
# the versions a server may move it to, RFC 9368).  Server: --versions LIST
# is gtlsserver's --preferred-versions (it moves a client that offers a
# more preferred version to it).
#
# --session-file F: resumption (issue 14).  gtlsclient's --session-file=F
# (the TLS session) and --tp-file=F.tp (the server's transport parameters,
# which 0-RTT needs): read if there, written after the handshake, with
# --wait-for-ticket so that the ticket is in before it exits.  gtlsclient
# sends 0-RTT whenever it has both files; without --0rtt we give it
# --disable-early-data, so the case is resumption alone.  Its qlog goes to
# F.qlog (replaced each run), and the summary line adds "0-RTT packets
# sent: N" (qlog transport:packet_sent of packet_type 0RTT): gtlsclient
# prints nothing else about resumption or early data with --quiet.
# --qlog-dir D (server): gtlsserver's qlog, one file per connection, for the
# caller to count the 0-RTT packets it received.  gtlsserver issues session
# tickets and accepts early data; it has no option to refuse it.
#
# What Debian ships (ngtcp2-server/ngtcp2-client 1.11, GnuTLS backend):
#   /usr/sbin/gtlsserver  ADDR PORT KEY CERT, -d DIR serves files
#   /usr/bin/gtlsclient   HOST PORT URI..., --download DIR saves them
# Both are the HTTP/3 examples (nghttp3); their ALPN is "h3", fixed in the
# binary, with no option to change it.  The HTTP/0.9 ("hq-interop")
# variants of the upstream examples (examples/h09client.cc, h09server.cc)
# are not packaged.  So Debian's ngtcp2 talks only to peers that speak h3:
# aioquic_hq.py --alpn h3 and quic-hq --alpn h3 (tests/interop/run passes
# --alpn h3 to both when ngtcp2 is the other side).  If you build the
# upstream h09 GnuTLS examples, point NGTCP2_SERVER/NGTCP2_CLIENT at them and
# set NGTCP2_ALPN=hq-interop; they take the same options.
#
# What they do, as seen from the outside (Debian's 1.11):
# - gtlsserver serves DIR/PATH for :path PATH, with the query dropped,
#   percent-escapes decoded and ".." resolved inside DIR (so "/../f" is
#   DIR/f); "/dir/" gives dir/index.html, "/dir" a 308 redirect, a missing
#   file a 404 with an HTML body.  Responses carry :status, server,
#   content-type and content-length, one HEADERS + DATA frames + FIN; its
#   QPACK encoder uses Huffman strings and, when the peer allows a dynamic
#   table, the dynamic table.  It opens control, QPACK encoder and QPACK
#   decoder streams (ids 3, 7, 11), and allows the client 3 uni streams.
# - gtlsclient sends :method, :scheme, :authority (HOST:PORT as in the
#   URL), :path and user-agent, opens its control and QPACK streams, and
#   saves each answer in DIR under the last "/" component of path+query
#   ("/a/b?x=1" -> "b?x=1", "/dir/" -> "index.html", fragment dropped).
#   DIR must exist.  It saves the body whatever the status (a 404's HTML
#   page lands under the file's name), and exits 0 even when the
#   connection failed (ALPN refused, no server: idle timeout after 30 s);
#   with --quiet it prints nothing of either.  So below the exit status
#   is that every file exists; whether it is the right file is for
#   tests/interop's SHA-256 check.  (Without --quiet, with --no-quic-dump
#   --no-http-dump, stderr carries "http: stream 0x0 [:status: 404]"
#   lines, at about twice the run time; we keep --quiet.)
#
# gtlsclient loads the system trust store but never verifies the server
# certificate (no gnutls_session_set_verify_cert call, no --ca option): any
# certificate is accepted, so --ca is ignored and certificate failure tests
# cannot use it as the client.
set -u

NGTCP2_SERVER=${NGTCP2_SERVER:-/usr/sbin/gtlsserver}
NGTCP2_CLIENT=${NGTCP2_CLIENT:-/usr/bin/gtlsclient}
NGTCP2_ALPN=${NGTCP2_ALPN:-h3}

die() { echo "ngtcp2.sh: $*" >&2; exit 2; }

# ADDR:PORT or [ADDR]:PORT -> "ADDR PORT"
split_hostport() {
	local s=$1
	case $s in
	\[*\]:*) host=${s%%]:*}; host=${host#[}; port=${s##*]:} ;;
	*:*) host=${s%:*}; port=${s##*:} ;;
	*) return 1 ;;
	esac
}

server() {
	local listen= cert= key= root= opts=()
	while [ $# -gt 0 ]; do
		case $1 in
		--retry) opts+=(--validate-addr); shift ;;
		--qlog-dir) opts+=("--qlog-dir=$2"); shift 2 ;;
		--versions) opts+=("--preferred-versions=$2"); shift 2 ;;
		--listen) listen=$2; shift 2 ;;
		--cert) cert=$2; shift 2 ;;
		--key) key=$2; shift 2 ;;
		--root) root=$2; shift 2 ;;
		*) die "server: unknown argument $1" ;;
		esac
	done
	[ -n "$listen" ] && [ -n "$cert" ] && [ -n "$key" ] && [ -n "$root" ] ||
		die "server: --listen, --cert, --key and --root are all needed"
	split_hostport "$listen" || die "server: bad --listen $listen"
	exec "$NGTCP2_SERVER" --quiet --htdocs="$root" "${opts[@]}" "$host" "$port" "$key" "$cert"
}

client() {
	local out=. urls=() u first= host port opts=() sess= early=0 zr=
	while [ $# -gt 0 ]; do
		case $1 in
		--key-update) opts+=("--key-update=$2"); shift 2 ;;
		--change-local-addr) opts+=("--change-local-addr=$2"); shift 2 ;;
		--nat-rebinding) opts+=(--nat-rebinding); shift ;;
		--token-file) opts+=("--token-file=$2"); shift 2 ;;
		--version) opts+=("--version=$2"); shift 2 ;;
		--versions) opts+=("--preferred-versions=$2"); shift 2 ;;
		--session-file) sess=$2; shift 2 ;;
		--0rtt) early=1; shift ;;
		--available-versions) opts+=("--available-versions=$2"); shift 2 ;;
		--ca) echo "ngtcp2.sh: gtlsclient cannot check certificates; --ca $2 ignored" >&2
		      shift 2 ;;
		--insecure) shift ;;
		--out) out=$2; shift 2 ;;
		-*) die "client: unknown option $1" ;;
		*) urls+=("$1"); shift ;;
		esac
	done
	[ ${#urls[@]} -gt 0 ] || die "client: no URL given"
	for u in "${urls[@]}"; do
		case $u in https://*) ;; *) die "client: $u: only https:// URLs" ;; esac
		u=${u#https://}
		u=${u%%/*}
		[ -z "$first" ] && first=$u
		[ "$u" = "$first" ] || die "client: every URL must name the same host and port"
	done
	case $first in
	*:*) split_hostport "$first" || die "client: bad host $first" ;;
	*) host=$first; port=443 ;;
	esac
	[ $early = 1 ] && [ -z "$sess" ] && die "client: --0rtt needs --session-file"
	if [ -n "$sess" ]; then
		opts+=("--session-file=$sess" "--tp-file=$sess.tp" --wait-for-ticket
		       "--qlog-file=$sess.qlog")
		[ $early = 1 ] || opts+=(--disable-early-data)
		rm -f "$sess.qlog"
	fi
	mkdir -p "$out" || exit 2
	"$NGTCP2_CLIENT" --quiet --exit-on-all-streams-close --download="$out" \
		"${opts[@]}" "$host" "$port" "${urls[@]}"
	local rc=$? missing=0 name
	for u in "${urls[@]}"; do
		u=${u%%#*}		# gtlsclient's file name (see above)
		name=${u##*/}
		[ -n "$name" ] || name=index.html
		if [ ! -f "$out/$name" ]; then
			echo "ngtcp2.sh: $u: not downloaded" >&2
			missing=$((missing + 1))
		fi
	done
	if [ -n "$sess" ]; then
		zr=", 0-RTT packets sent: $(grep '"name":"transport:packet_sent"' "$sess.qlog" 2>/dev/null |
			grep -c '"packet_type":"0RTT"')"
	fi
	echo "ngtcp2 client: $(( ${#urls[@]} - missing ))/${#urls[@]} files, gtlsclient status $rc$zr"
	[ $rc -eq 0 ] && [ $missing -eq 0 ]
}

case ${1:-} in
server) shift; server "$@" ;;
client) shift; client "$@" ;;
alpn) echo "$NGTCP2_ALPN" ;;
*) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
