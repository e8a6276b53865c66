# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of tests/interop: TAP output, certificates, test files,
# network namespaces with netem, servers and clients with time limits,
# sysctls set for a while, and cleanup.  Source it from bash; it sets up
# $IO_WORK and an EXIT trap.
#
# Addresses: 10.99.0.1/24 + fd99::1/64 (server side) and 10.99.0.2/24 +
# fd99::2/64 (client side) exist only inside the private namespaces made
# here; nothing outside loopback and those namespaces is ever used.

IO_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IO_DIR=$IO_REPO/tests/interop
IO_WORK=$(mktemp -d "${TMPDIR:-/tmp}/quic-interop.XXXXXX")
IO_NS_PREFIX=qi$$
IO_PIDS=()
IO_NETNS=()
IO_SYSCTLS=()	# "name=old value" of sysctls changed by io_sysctl
IO_TAP_N=0
IO_TAP_FAIL=0

# ---- TAP --------------------------------------------------------------

tap_diag() { sed 's/^/# /'; }
tap_note() { echo "# $*"; }
tap_ok() { IO_TAP_N=$((IO_TAP_N + 1)); echo "ok $IO_TAP_N - $*"; }
tap_not_ok() {
	IO_TAP_N=$((IO_TAP_N + 1))
	IO_TAP_FAIL=$((IO_TAP_FAIL + 1))
	echo "not ok $IO_TAP_N - $*"
}
tap_skip() { local name=$1; shift; tap_ok "$name # SKIP $*"; }
tap_done() {
	echo "1..$IO_TAP_N"
	[ $IO_TAP_FAIL -eq 0 ]
}

# The clock and waits from bash itself: a process costs 0.1-0.4 s in a
# TCG guest, and a case used to start a few dozen for them alone.
now() { echo "${EPOCHREALTIME/,/.}"; }	# seconds, with microseconds
elapsed() {	# T0 (a now()): the seconds since, to a tenth
	local t=${EPOCHREALTIME/,/.} f=${1#*.}000000 d
	f=${f:0:6}
	d=$(( (${t%.*} - ${1%.*}) * 1000000 + 10#${t#*.} - 10#$f ))
	d=$(( (d + 50000) / 100000 ))
	echo "$((d / 10)).$((d % 10))"
}
IO_SLEEP_FD=
io_sleep() {	# SECS: a read that times out on a pipe nobody writes to
	[ -n "$IO_SLEEP_FD" ] || exec {IO_SLEEP_FD}<> <(:)
	read -r -t "$1" -u "$IO_SLEEP_FD" _ || true
}

# ---- cleanup ----------------------------------------------------------

io_kill() {	# PID...: stop processes (and their process groups) we started
	local p
	for p in "$@"; do
		kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
	done
	for p in "$@"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			io_sleep 0.2
		done
		kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}

io_cleanup() {
	local ns
	[ ${#IO_PIDS[@]} -gt 0 ] && io_kill "${IO_PIDS[@]}"
	IO_PIDS=()
	io_sysctl_restore
	for ns in "${IO_NETNS[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	IO_NETNS=()
	if [ "${INTEROP_KEEP:-0}" = 1 ]; then
		echo "# kept $IO_WORK" >&2
	else
		rm -rf "$IO_WORK"
	fi
}
trap io_cleanup EXIT
trap 'exit 130' INT TERM

# ---- certificates -----------------------------------------------------

# io_certs DIR: ca.pem (trusted CA); server.{pem,key} for localhost,
# server.test and every test address; wrong.{pem,key} for other.test only,
# from the same CA; evil-ca.pem and evil.{pem,key}, the server's names from
# a CA nobody trusts; big.{pem,key}, server.pem with 300 names more.
# ECDSA P-256, valid for 2 days.
io_certs() {
	local d=$1 sans
	mkdir -p "$d"
	sans="subjectAltName=DNS:localhost,DNS:server.test,IP:127.0.0.1,IP:::1"
	sans+=",IP:10.99.0.1,IP:10.99.0.2,IP:fd99::1,IP:fd99::2"
	(
		set -e
		cd "$d"
		mkca() {	# name CN
			openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
				-nodes -keyout "$1.key" -out "$1.pem" -days 2 \
				-subj "/CN=$2" -addext basicConstraints=critical,CA:TRUE \
				-addext keyUsage=critical,keyCertSign,cRLSign
		}
		mkleaf() {	# name ca CN SAN
			openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
				-keyout "$1.key" -out "$1.csr" -subj "/CN=$3"
			printf '%s\n' "$4" "basicConstraints=CA:FALSE" \
				"keyUsage=critical,digitalSignature" \
				"extendedKeyUsage=serverAuth" > "$1.ext"
			openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" \
				-CAcreateserial -days 2 -extfile "$1.ext" -out "$1.pem"
		}
		mkca ca "QUIC interop test CA"
		mkca evil-ca "Untrusted test CA"
		mkleaf server ca server.test "$sans"
		mkleaf wrong ca other.test "subjectAltName=DNS:other.test"
		mkleaf evil evil-ca server.test "$sans"
		# big: 300 names more, so that its flight alone exceeds three
		# times a client's first datagram (anti-amplification limit).
		mkleaf big ca server.test "$sans$(printf ',DNS:pad%03d.server.test' $(seq 300))"
	) > "$d/openssl.log" 2>&1 || { cat "$d/openssl.log" >&2; return 1; }
}

# ---- test files -------------------------------------------------------

# io_quic_stats NAME...: those counters of /proc/net/quic_stats
# (module-wide) on one line, 0 for one it does not have; read by bash
# itself, as a case reads a dozen of them
io_quic_stats() {
	local -A v=()
	local n x out=()
	if [ -r /proc/net/quic_stats ]; then
		while read -r n x _; do
			v[$n]=$x
		done < /proc/net/quic_stats
	fi
	for n in "$@"; do
		out+=("${v[$n]:-0}")
	done
	echo "${out[*]}"
}

io_quic_stat() { io_quic_stats "$1"; }	# NAME: one counter

io_bytes() {	# SIZE with an optional K or M: bytes
	case $1 in
	*K) echo $(( ${1%K} * 1024 )) ;;
	*M) echo $(( ${1%M} * 1024 * 1024 )) ;;
	*) echo $(( $1 )) ;;
	esac
}

# io_files DIR PREFIX SIZE COUNT: COUNT files PREFIX (one) or PREFIX-001...
# (several) of SIZE bytes (suffixes K and M allowed) of random data, and
# their SHA-256 sums in DIR/PREFIX.sha256.  Prints the file names.  Made
# once, then reused.  A set is cut from one stream by one split(1): a
# process per file cost 20-40 s for 200 files in a loaded TCG guest.
io_files() {
	local d=$1 p=$2 n=$4 bytes
	bytes=$(io_bytes "$3")
	mkdir -p "$d"
	if [ ! -f "$d/$p.sha256" ]; then
		if [ "$n" -gt 1 ]; then
			head -c $((bytes * n)) /dev/urandom |
				split -b "$bytes" -a ${#n} --numeric-suffixes=1 - "$d/$p-" ||
				return 1
			(cd "$d" && ls -- "$p"-*[0-9]) > "$d/$p.list" || return 1
		else
			head -c "$bytes" /dev/urandom > "$d/$p" || return 1
			echo "$p" > "$d/$p.list"
		fi
		[ "$(wc -l < "$d/$p.list")" -eq "$n" ] || return 1
		(cd "$d" && xargs sha256sum < "$p.list") > "$d/$p.sha256" || return 1
	fi
	cat "$d/$p.list"
}

# io_check_files WWW PREFIX OUT: every file of the set is in OUT, with its
# SHA-256; prints what differs.
io_check_files() {
	local www=$1 p=$2 out=$3 name sum bad=0 total=0
	local -A got	# name -> SHA-256 of what arrived: one sha256sum for all
	while read -r sum name; do
		got[$name]=$sum
	done < <(cd "$out" 2>/dev/null && xargs -r sha256sum -- < "$www/$p.list" 2>/dev/null)
	while read -r sum name; do
		total=$((total + 1))
		if [ ! -f "$out/$name" ]; then
			[ $bad -lt 5 ] && echo "$name: missing"
			bad=$((bad + 1))
		elif [ "${got[$name]:-}" != "$sum" ]; then
			[ $bad -lt 5 ] && echo "$name: $(stat -c %s "$out/$name") bytes, SHA-256 differs"
			bad=$((bad + 1))
		fi
	done < "$www/$p.sha256"
	[ $bad -eq 0 ] && return 0
	echo "$bad of $total files missing or different"
	return 1
}

# ---- sysctls ----------------------------------------------------------
# io_sysctl NAME VALUE: set a sysctl of this (the initial) namespace, after
# noting its value; io_sysctl_restore puts back every noted value (run by
# the EXIT trap too, so an interrupted run leaves none changed).

io_sysctl() {
	local name=$1 value=$2 f old x
	f=/proc/sys/${name//.//}
	old=$(cat "$f") || return 1
	for x in "${IO_SYSCTLS[@]}"; do
		[ "${x%%=*}" = "$name" ] && old=		# noted already
	done
	[ -n "$old" ] && IO_SYSCTLS+=("$name=$old")
	echo "$value" > "$f"
}

io_sysctl_restore() {
	local x n
	for x in "${IO_SYSCTLS[@]}"; do
		n=${x%%=*}
		echo "${x#*=}" > "/proc/sys/${n//.//}" 2>/dev/null ||
			echo "interop: could not restore $n to ${x#*=}" >&2
	done
	IO_SYSCTLS=()
}

# ---- network namespaces -----------------------------------------------

io_have_netns() {
	local ns=${IO_NS_PREFIX}probe
	ip netns add "$ns" 2>/dev/null || return 1
	ip netns del "$ns"
}

# io_have_netem: can this kernel run netem?  Tried on a veth inside a
# namespace of our own.
io_have_netem() {
	local ns=${IO_NS_PREFIX}probe ok=1
	ip netns add "$ns" 2>/dev/null || return 1
	if ip -n "$ns" link add qia type veth peer name qib 2>/dev/null &&
	   tc -n "$ns" qdisc add dev qia root netem delay 1ms 2>/dev/null; then
		ok=0
	fi
	ip netns del "$ns"
	return $ok
}

io_ns_add() {	# NAME: a fresh namespace with lo up
	ip netns add "$1" || return 1
	IO_NETNS+=("$1")
	ip -n "$1" link set lo up
}

io_ns_del() {	# NAME...
	local ns keep=() x pids
	for ns in "$@"; do
		pids=$(ip netns pids "$ns" 2>/dev/null)
		# shellcheck disable=SC2086  # one PID per word
		[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	done
	printf 'netns del %s\n' "$@" | ip -force -batch - 2>/dev/null
	for x in "${IO_NETNS[@]}"; do
		for ns in "$@"; do [ "$x" = "$ns" ] && continue 2; done
		keep+=("$x")
	done
	IO_NETNS=("${keep[@]}")
}

# io_pair NS_S NS_C NETEM...: two namespaces joined by a veth pair,
# 10.99.0.1 + fd99::1 in NS_S, 10.99.0.2 + fd99::2 in NS_C; with NETEM
# arguments (e.g. "delay 20ms loss 5%"), netem on both ends so that both
# directions are impaired.
# Three ip(8) runs in batch mode, not ten: each costs 0.3-0.6 s in a TCG
# guest.  Both names are noted for io_ns_del first, made or not.
io_pair() {
	local s=$1 c=$2
	shift 2
	IO_NETNS+=("$s" "$c")
	printf '%s\n' "netns add $s" "netns add $c" \
		"link add qis netns $s type veth peer name qic netns $c" |
		ip -batch - || return 1
	printf '%s\n' "link set lo up" "addr add 10.99.0.1/24 dev qis" \
		"addr add fd99::1/64 dev qis nodad" "link set qis up" |
		ip -n "$s" -batch - || return 1
	printf '%s\n' "link set lo up" "addr add 10.99.0.2/24 dev qic" \
		"addr add fd99::2/64 dev qic nodad" "link set qic up" |
		ip -n "$c" -batch - || return 1
	if [ $# -gt 0 ]; then
		tc -n "$s" qdisc add dev qis root netem "$@" &&
		tc -n "$c" qdisc add dev qic root netem "$@" || return 1
	fi
}

# io_in NS CMD...: run CMD in namespace NS ("" = the current one)
io_in() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# ---- processes --------------------------------------------------------

# io_start NS LOG LIMIT CMD...: start CMD in the background in its own
# process group, in namespace NS, killed after LIMIT seconds; sets IO_PID.
io_start() {
	local ns=$1 log=$2 limit=$3
	shift 3
	setsid timeout -k 5 "$limit" bash -c 'ns=$1; shift
		if [ -n "$ns" ]; then exec ip netns exec "$ns" "$@"; fi
		exec "$@"' io_start "$ns" "$@" > "$log" 2>&1 < /dev/null &
	IO_PID=$!
	IO_PIDS+=("$IO_PID")
}

io_stop() {	# PID: stop a process started by io_start
	local keep=() p
	io_kill "$1"
	for p in "${IO_PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	IO_PIDS=("${keep[@]}")
}

# io_wait_udp NS PORT SECONDS [PID]: wait until something listens on UDP
# PORT in NS; fails early if PID dies.
io_wait_udp() {
	local ns=$1 port=$2 t=$3 pid=${4:-} end
	end=$((EPOCHSECONDS + t))
	while [ "$EPOCHSECONDS" -le $end ]; do
		# ss -N: into the namespace without ip netns exec's remounts
		[ -n "$(ss ${ns:+-N "$ns"} -Hlun "sport = :$port" 2>/dev/null)" ] &&
			return 0
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			return 1
		fi
		io_sleep 0.2
	done
	return 1
}

# io_free_udp_port: a UDP port nobody uses in this namespace (for runs in
# the current namespace, where other programs live too).
io_free_udp_port() {
	local p
	for _ in $(seq 50); do
		p=$(( 20000 + RANDOM % 40000 ))
		ss -Hlun "sport = :$p" 2>/dev/null | grep -q . || { echo $p; return 0; }
	done
	return 1
}

# ---- peers ------------------------------------------------------------

# The Python that has aioquic: $AIOQUIC_PYTHON, else the first of a few
# usual places (the guest's PATH finds /usr/bin/python3 first, while
# aioquic lives in root's pyenv), resolved to the real interpreter so no
# pyenv shim runs per call.
io_aioquic_python() {
	local c
	for c in ${AIOQUIC_PYTHON:-} python3 /root/.pyenv/shims/python3 \
		 /root/.pyenv/versions/*/bin/python3 /usr/bin/python3 /usr/local/bin/python3; do
		command -v "$c" > /dev/null 2>&1 || continue
		"$c" -c 'import aioquic, sys; print(sys.executable)' 2>/dev/null && return 0
	done
	return 1
}

# ---- aioquic through one long-lived process ------------------------------
# Python with aioquic needs 20-90 s just to start in a TCG guest, so
# aioquic_hq.py runs once as a "spawner" and forks a client or server per
# request, already in the right namespace (see spawner() there).
# INTEROP_SPAWNER=0 starts a fresh interpreter for each run instead.

AQ_DIR=
AQ_N=0

aq_spawner() {	# PY: start the spawner unless running; waits until ready
	local end
	[ "${INTEROP_SPAWNER:-1}" = 0 ] && return 0
	[ -n "$AQ_DIR" ] && kill -0 "$AQ_PID" 2>/dev/null && return 0
	AQ_DIR=$IO_WORK/aioquic
	mkdir -p "$AQ_DIR/req"
	io_start "" "$AQ_DIR/spawner.log" 100000 "$1" "$IO_DIR/peers/aioquic_hq.py" spawner --dir "$AQ_DIR"
	AQ_PID=$IO_PID
	end=$((EPOCHSECONDS + 300))
	while [ ! -f "$AQ_DIR/ready" ]; do
		if ! kill -0 "$AQ_PID" 2>/dev/null || [ "$EPOCHSECONDS" -gt $end ]; then
			cat "$AQ_DIR/spawner.log" >&2
			AQ_DIR=
			return 1
		fi
		io_sleep 0.2
	done
}

# aq_start NS LOG PY ARGS...: an aioquic_hq.py run in namespace NS, in the
# background; sets IO_PID and AQ_ID.
aq_start() {
	local ns=$1 log=$2 py=$3 end
	shift 3
	if [ "${INTEROP_SPAWNER:-1}" = 0 ]; then
		io_start "$ns" "$log" 100000 "$py" "$IO_DIR/peers/aioquic_hq.py" "$@"
		AQ_ID=
		return 0
	fi
	aq_spawner "$py" || return 1
	AQ_N=$((AQ_N + 1))
	AQ_ID=r$AQ_N
	printf '%s\0' "$ns" "$log" "$@" > "$AQ_DIR/$AQ_ID.tmp" &&
		mv "$AQ_DIR/$AQ_ID.tmp" "$AQ_DIR/req/$AQ_ID.req" || return 1
	end=$((EPOCHSECONDS + 30))
	while [ ! -f "$AQ_DIR/$AQ_ID.pid" ]; do
		[ "$EPOCHSECONDS" -gt $end ] && return 1
		io_sleep 0.05
	done
	IO_PID=$(cat "$AQ_DIR/$AQ_ID.pid")
	IO_PIDS+=("$IO_PID")
}

# aq_run NS LOG LIMIT PY ARGS...: run aioquic_hq.py in NS for at most
# LIMIT seconds; returns its status, 124 on timeout (like timeout(1)).
aq_run() {
	local ns=$1 log=$2 limit=$3 py=$4 end rc
	shift 4
	if [ "${INTEROP_SPAWNER:-1}" = 0 ]; then
		io_in "$ns" timeout -k 5 "$limit" "$py" "$IO_DIR/peers/aioquic_hq.py" "$@" > "$log" 2>&1 < /dev/null
		return
	fi
	aq_start "$ns" "$log" "$py" "$@" || return 125
	end=$((EPOCHSECONDS + limit))
	while [ ! -f "$AQ_DIR/$AQ_ID.rc" ] && [ "$EPOCHSECONDS" -lt $end ]; do
		io_sleep 0.1
	done
	if [ ! -f "$AQ_DIR/$AQ_ID.rc" ]; then
		io_stop "$IO_PID"
		return 124
	fi
	rc=$(cat "$AQ_DIR/$AQ_ID.rc")
	io_stop "$IO_PID"
	return "$rc"
}
