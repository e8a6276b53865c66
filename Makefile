# QUIC in the Linux kernel: top-level build and test entry points.
#
#   make demo     boot the guest, load quic.ko and show it working
#   make check    everything: host tests, then all in-VM tests in one boot
#   make unit     host unit tests of the wire layer only
#   make fuzz     libFuzzer targets, short bounded runs (FUZZ_RUNS=...)
#   make module   build net/quic/quic.ko (KVER=... or KDIR=... to choose)
#   make check-debug  the in-VM tests on a debug kernel (KASAN, lockdep,
#                 kmemleak...), built once into /var/cache/quic-debug-kernel
#
# make check and make demo install what is missing first (tests/vm/deps).

KVER ?= $(shell tests/vm/kver 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
# The module's source directory; tests/vm/run --debug builds a copy of it
# against the debug kernel so that net/quic keeps the normal build.
MODSRC ?= $(CURDIR)/net/quic

all: module userspace

deps:
	@tests/vm/deps

module:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': run tests/vm/deps" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(MODSRC) W=1 modules
	@# quic_sample.ko calls net/handshake; the debug kernel is built without it
	@if grep -qs '^CONFIG_NET_HANDSHAKE=y' $(KDIR)/.config; then \
		$(MAKE) -C tests/kernel KDIR=$(KDIR) QUIC_SYMVERS=$(MODSRC)/Module.symvers; \
	else \
		echo "tests/kernel: $(KDIR) has no CONFIG_NET_HANDSHAKE: quic_sample.ko not built" >&2; \
	fi

# Everything built on the host that the guest runs.
userspace:
	$(MAKE) -C libquic
	$(MAKE) -C tools/quic-hq
	$(MAKE) -C tools/quic-perf
	$(MAKE) -C bench
	$(MAKE) -C tools/quic-handshaked
	$(MAKE) -C tests/kernel/user
	$(MAKE) -C tests/selftests
	$(MAKE) -C tests/hostile
	$(MAKE) -C tests/compat
	$(MAKE) -C tests/interop/peers/quicgo
	$(MAKE) -C tests/interop/peers/dgram

unit:
	$(MAKE) -C tests/unit check

fuzz:
	$(MAKE) -C tests/unit fuzz

check: deps
	@tests/check

# Not part of make check: 33 minutes with the debug kernel cached, half an
# hour more to build it the first time.  See README.
check-debug: deps
	@tests/check --debug

demo: deps
	@$(MAKE) -s module userspace
	tests/vm/run -- tests/demo.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/net/quic clean 2>/dev/null || true
	$(MAKE) -C tests/selftests clean
	$(MAKE) -C tests/hostile clean
	$(MAKE) -C tests/compat clean
	$(MAKE) -C tests/interop/peers/dgram clean
	@if [ -f tests/unit/Makefile ]; then $(MAKE) -C tests/unit clean; fi
	$(MAKE) -C libquic clean
	$(MAKE) -C tools/quic-hq clean
	$(MAKE) -C tools/quic-perf clean
	$(MAKE) -C bench clean
	$(MAKE) -C tools/quic-handshaked clean
	$(MAKE) -C tests/kernel/user clean
	rm -rf build

.PHONY: all deps module userspace unit fuzz check check-debug demo clean
