#!/bin/bash
# Module life cycle in the guest: autoload on socket(), rmmod refused while
# a socket is open and clean once it is closed.  Leaves quic loaded.
set -u
n=0 failed=0
py=/usr/bin/python3

result() {	# result OK NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

loaded() { grep -q '^quic ' /proc/modules; }

sock() {	# sock FAMILY TYPE: open, bind port 0, print the address
	$py -c "import socket, sys
f = socket.AF_INET if sys.argv[1] == '4' else socket.AF_INET6
t = socket.SOCK_DGRAM if sys.argv[2] == 'dgram' else socket.SOCK_STREAM
s = socket.socket(f, t, 261)
s.bind(('127.0.0.1' if f == socket.AF_INET else '::1', 0))
name = s.getsockname()
assert name[1] != 0, name
print(name)" "$1" "$2"
}

echo "TAP version 13"

# Connections closed by earlier tests may still be in their closing period
# (a few PTOs), holding the module: give them time to end.
for i in $(seq 50); do
	rmmod quic 2>/dev/null && break
	loaded || break
	sleep 0.2
done
! loaded; result $? "rmmod with no sockets open (after closing periods end)"

for fam in 4 6; do
	for type in dgram stream; do
		rmmod quic 2>/dev/null
		out=$(sock $fam $type) && loaded
		result $? "socket(AF_INET$([ $fam = 6 ] && echo 6), $type, 261) autoloads quic.ko: $out"
	done
done

# A live socket holds the module.
fifo=$(mktemp -u /tmp/quic-hold.XXXXXX)
mkfifo "$fifo"
$py -c "import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 261)
s.bind(('127.0.0.1', 0))
print('bound', flush=True)
sys.stdin.read()" < "$fifo" > "$fifo.out" &
holder=$!
exec 9> "$fifo"
for _ in $(seq 50); do grep -q bound "$fifo.out" 2>/dev/null && break; sleep 0.1; done
! rmmod quic 2>/dev/null && loaded
result $? "rmmod refused while a socket is open"
exec 9>&-
wait $holder
rm -f "$fifo" "$fifo.out"
rmmod quic && ! loaded
result $? "rmmod succeeds once the socket is closed"

modprobe quic && loaded
result $? "modprobe quic again"

# Memory per idle connection (issue 17): six struct quic_sock fit a 32 KB
# slab at 5,440 bytes or less (net/quic/socket.h), five above.  A kernel
# with lock debugging has bigger locks, so there it cannot hold.
size=$(cat /sys/kernel/slab/QUIC/object_size 2>/dev/null)
if [ -e /proc/lockdep ]; then
	n=$((n + 1))
	echo "ok $n - struct quic_sock at most 5,440 bytes # SKIP lock debugging (/proc/lockdep) makes locks bigger"
else
	[ -n "$size" ] && [ "$size" -le 5440 ]
	result $? "struct quic_sock at most 5,440 bytes, six per 32 KB slab (QUIC cache objects: ${size:-none} bytes)"
fi

echo "1..$n"
[ $failed -eq 0 ]
