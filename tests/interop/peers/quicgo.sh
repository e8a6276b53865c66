#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# quic-go's client (github.com/quic-go/quic-go, Go) behind the command line
# of the other interop peers, for tests/interop:
#
#   quicgo.sh client [--ca F | --insecure] --out DIR [--alpn hq-interop|h3] URL...
#   quicgo.sh alpn     prints the ALPNs it speaks
#   quicgo.sh check    exit 0 if the client is built and runs, else says why
#   quicgo.sh build    builds it (make -C tests/interop/peers/quicgo)
#
# Client only: no server mode.  One connection, all URLs at once; exit 0
# only if every file arrived whole.  quic-go runs at its default settings,
# so it starts a key update about every 100 packets (RFC 9001 section 6).
# The binary is built on the host by "make userspace" (CGO_ENABLED=0, no
# shared libraries) into peers/quicgo/quicgo-client, where the guest,
# which sees the host's file system read-only, runs it as it is.
dir=$(cd "$(dirname "$0")/quicgo" && pwd)
bin=${QUICGO_CLIENT:-$dir/quicgo-client}

case $1 in
client)
	if [ ! -x "$bin" ]; then
		echo "quicgo: $bin not built (make -C tests/interop/peers/quicgo; needs Go)" >&2
		exit 127
	fi
	exec "$bin" "$@" ;;
alpn)
	echo "hq-interop h3" ;;
check)
	if [ ! -x "$bin" ]; then
		echo "no $bin (make -C tests/interop/peers/quicgo; needs Go)"
		exit 1
	fi
	"$bin" >/dev/null 2>&1
	[ $? -eq 2 ] || { echo "$bin does not run"; exit 1; } ;;
build)
	exec make -C "$dir" ;;
*)
	echo "usage: $0 client [--ca F | --insecure] --out DIR [--alpn hq-interop|h3] URL... | alpn | check | build" >&2
	exit 2 ;;
esac
