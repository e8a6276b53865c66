// SPDX-License-Identifier: GPL-2.0
/*
 * keyadd: put a key into root's user keyring for the kernel-consumer
 * tests (no keyutils needed), readable by root's processes, and print its
 * serial.  The kernel module takes the serial as a parameter and passes it
 * in tls_handshake_args; quic-handshaked reads the key with keyctl.
 *   keyadd DESCRIPTION FILE        payload: the file (PEM certificate/key)
 *   keyadd DESCRIPTION -x HEX      payload: the bytes of HEX (a PSK)
 *   keyadd -K DESCRIPTION          a keyring (for ta_keyring)
 *   keyadd -r SERIAL               revoke a key (a keyring: cleared first)
 *   keyadd -p SERIAL               print a key's payload (as keyctl pipe)
 *   keyadd -d SERIAL               print a key's description (as keyctl
 *                                  rdescribe: type;uid;gid;perm;desc)
 *   keyadd -l SERIAL               list a keyring's keys, one per line
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

	if (argc == 3 && !strcmp(argv[1], "-r")) {
		syscall(SYS_keyctl, KEYCTL_CLEAR, atol(argv[2]));
		return syscall(SYS_keyctl, KEYCTL_REVOKE, atol(argv[2])) ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "-p")) {
		long n = syscall(SYS_keyctl, KEYCTL_READ, atol(argv[2]), buf,
				 sizeof(buf));

		if (n < 0 || (size_t)n > sizeof(buf)) {
			perror("keyctl read");
			return 1;
		}
		return fwrite(buf, 1, (size_t)n, stdout) == (size_t)n ? 0 : 1;
	}
	if (argc == 3 && !strcmp(argv[1], "-d")) {
		long n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, atol(argv[2]), buf,
				 sizeof(buf) - 1);

		if (n < 0) {
			perror("keyctl describe");
			return 1;
		}
		buf[sizeof(buf) - 1] = 0;
		printf("%s\n", buf);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "-l")) {
		int *ids = (int *)buf;
		long n = syscall(SYS_keyctl, KEYCTL_READ, atol(argv[2]), buf,
				 sizeof(buf)), i;

		if (n < 0 || (size_t)n > sizeof(buf)) {
			perror("keyctl read");
			return 1;
		}
		for (i = 0; i < n / (long)sizeof(int); i++)
			printf("%d\n", ids[i]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "-K")) {
		serial = syscall(SYS_add_key, "keyring", argv[2], NULL, 0,
				 KEY_SPEC_USER_KEYRING);
		goto made;
	}
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
		fputs("usage: keyadd DESC FILE | keyadd DESC -x HEX | keyadd -K DESC |\n"
		      "       keyadd -r|-p|-d|-l SERIAL\n", stderr);
		return 2;
	}
	serial = syscall(SYS_add_key, "user", argv[1], buf, len,
			 KEY_SPEC_USER_KEYRING);
made:
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
