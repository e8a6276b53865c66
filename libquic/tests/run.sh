#!/bin/sh
# Generate test credentials into a temporary directory and run the libquic
# handshake tests (TAP on stdout).
cd "$(dirname "$0")" || exit 1
dir=$(mktemp -d "${TMPDIR:-/tmp}/libquic-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

issue() {	# NAME TEMPLATE: NAME.key and NAME.pem, signed by the CA
	certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 \
		--outfile "$dir/$1.key" &&
	printf "$2"'signing_key\nexpiration_days = 2\n' > "$dir/$1.tmpl" &&
	certtool --generate-certificate --load-privkey "$dir/$1.key" \
		--load-ca-certificate "$dir/ca.pem" --load-ca-privkey "$dir/ca.key" \
		--template "$dir/$1.tmpl" --outfile "$dir/$1.pem"
}

gen() {
	# CA
	certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 \
		--outfile "$dir/ca.key" &&
	printf 'cn = "libquic test CA"\nca\ncert_signing_key\nexpiration_days = 2\n' \
		> "$dir/ca.tmpl" &&
	certtool --generate-self-signed --load-privkey "$dir/ca.key" \
		--template "$dir/ca.tmpl" --outfile "$dir/ca.pem" &&
	# another, unrelated CA
	certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 \
		--outfile "$dir/other-ca.key" &&
	sed 's/libquic test CA/libquic other CA/' "$dir/ca.tmpl" > "$dir/other-ca.tmpl" &&
	certtool --generate-self-signed --load-privkey "$dir/other-ca.key" \
		--template "$dir/other-ca.tmpl" --outfile "$dir/other-ca.pem" &&
	# server certificate for localhost, signed by the CA
	issue server 'cn = "localhost"\ndns_name = "localhost"\nip_address = "127.0.0.1"\ntls_www_server\n' &&
	# client certificate, signed by the CA (for certificate_request)
	issue client 'cn = "libquic test client"\ntls_www_client\n' &&
	# PSK files: identity:hexkey (psktool format), same identity, two keys
	key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n') &&
	bad=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n') &&
	printf '# libquic test PSK\nclient1:%s\n' "$key" > "$dir/psk.txt" &&
	printf 'client1:%s\n' "$bad" > "$dir/psk-wrong.txt"
}

# KEEP_DIR=path: generate into path and keep it (debugging)
if [ -n "${KEEP_DIR:-}" ]; then rmdir "$dir"; dir=$KEEP_DIR; mkdir -p "$dir"; trap - EXIT INT TERM; fi
if ! gen > "$dir/gen.log" 2>&1; then
	sed 's/^/# /' "$dir/gen.log"
	echo "not ok 1 - generating test certificates with certtool"
	exit 1
fi
./handshake_test "$dir"
