// SPDX-License-Identifier: GPL-2.0
/*
 * keyadd: put a key into root's user keyring for the kernel-consumer
 * tests (no keyutils needed), readable by root's processes, and print its
 * serial.  The kernel module takes the serial as a parameter and passes it
 * in tls_handshake_args; quic-handshaked reads the key with keyctl.
 *   keyadd DESCRIPTION FILE        payload: the file (PEM certificate/key)
 *   keyadd DESCRIPTION -x HEX      payload: the bytes of HEX (a PSK)
 *   keyadd -r SERIAL               revoke a key
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16];
	size_t len = 0;
	long serial;

	if (argc == 3 && !strcmp(argv[1], "-r"))
		return syscall(SYS_keyctl, KEYCTL_REVOKE, atol(argv[2])) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[2], "-x")) {
		const char *h = argv[3];

		while (h[0] && h[1] && len < sizeof(buf)) {
			unsigned int v;

			if (sscanf(h, "%2x", &v) != 1)
				return 2;
			buf[len++] = (unsigned char)v;
			h += 2;
		}
	} else if (argc == 3) {
		FILE *f = fopen(argv[2], "r");

		if (!f) {
			perror(argv[2]);
			return 1;
		}
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
	} else {
		fputs("usage: keyadd DESC FILE | keyadd DESC -x HEX | keyadd -r SERIAL\n", stderr);
		return 2;
	}
	serial = syscall(SYS_add_key, "user", argv[1], buf, len,
			 KEY_SPEC_USER_KEYRING);
	if (serial < 0) {
		perror("add_key");
		return 1;
	}
	/* possessor and owner: everything */
	if (syscall(SYS_keyctl, KEYCTL_SETPERM, serial, 0x3f3f0000L)) {
		perror("keyctl setperm");
		return 1;
	}
	printf("%ld\n", serial);
	return 0;
}
