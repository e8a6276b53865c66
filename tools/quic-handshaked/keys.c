// SPDX-License-Identifier: GPL-2.0
/*
 * Key material.  From the kernel keyring the way tlshd takes it: the
 * request names keys by serial; a certificate key's payload is the PEM (or
 * DER) certificate chain, a private-key key's payload the PEM (or DER)
 * private key, and a PSK key's description is the PSK identity while its
 * payload is the raw key.  The kernel linked the request's keyring (if
 * any) into our process keyring, so the keys are readable.  keyctl(2) is
 * called directly: no libkeyutils needed.
 * From files: PSK files of "identity:hexkey" lines (psktool's format).
 * To the keyring: the certificate a peer authenticated with, as a key
 * whose serial DONE reports (hsd_peer_key()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>

#include "hsd.h"

#define HSD_KEY_MAX	(1 << 20)

static long keyctl4(int cmd, long a, long b, long c)
{
	return syscall(SYS_keyctl, cmd, a, b, c, 0L);
}

int hsd_key_read(int32_t serial, uint8_t **data, size_t *len)
{
	size_t cap = 4096;
	uint8_t *buf = NULL;
	long n;

	for (;;) {
		uint8_t *nbuf = realloc(buf, cap);

		if (!nbuf) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		n = keyctl4(KEYCTL_READ, serial, (long)buf, (long)cap);
		if (n < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if ((size_t)n <= cap)
			break;
		if ((size_t)n > HSD_KEY_MAX) {
			free(buf);
			return -EFBIG;
		}
		cap = (size_t)n;
	}
	*data = buf;
	*len = (size_t)n;
	return 0;
}

const char *hsd_desc_field(const char *describe)
{
	const char *p = describe;
	int i;

	for (i = 0; i < 4; i++) {
		p = strchr(p, ';');
		if (!p)
			return NULL;
		p++;
	}
	return p;
}

int hsd_key_desc(int32_t serial, char *buf, size_t len)
{
	char d[512];
	const char *f;
	long n;

	n = keyctl4(KEYCTL_DESCRIBE, serial, (long)d, sizeof(d));
	if (n < 0)
		return -errno;
	if ((size_t)n > sizeof(d))
		return -ENAMETOOLONG;
	d[sizeof(d) - 1] = 0;
	f = hsd_desc_field(d);
	if (!f || !*f || strlen(f) >= len)
		return -EINVAL;
	strcpy(buf, f);
	return 0;
}

/* possessor: all; owner (root): view, read, search */
#define HSD_PEER_KEY_PERM	0x3f0b0000L

/*
 * The keyrings in our process keyring: the one the kernel user named in
 * ta_keyring, linked there by net/handshake on ACCEPT (a worker serves one
 * request, so there is at most one).  Links @serial into each.  0, or the
 * first error.
 */
static int link_request_keyrings(int32_t serial)
{
	int32_t ids[64];
	char d[512];
	long n, i;
	int err = 0;

	n = keyctl4(KEYCTL_READ, KEY_SPEC_PROCESS_KEYRING, (long)ids, sizeof(ids));
	if (n < 0)
		return -errno;
	n /= (long)sizeof(ids[0]);
	if (n > (long)(sizeof(ids) / sizeof(ids[0])))
		n = sizeof(ids) / sizeof(ids[0]);
	for (i = 0; i < n; i++) {
		if (ids[i] == serial ||
		    keyctl4(KEYCTL_DESCRIBE, ids[i], (long)d, sizeof(d)) < 0 ||
		    strncmp(d, "keyring;", 8))
			continue;
		if (keyctl4(KEYCTL_LINK, serial, ids[i], 0) < 0 && !err)
			err = -errno;
	}
	return err;
}

int hsd_peer_key(const char *desc, const void *der, size_t len,
		 int32_t *serial, int *link_err)
{
	long s;

	/* in our process keyring: it lives as long as this worker, unless
	 * the kernel user's keyring or a reference (key_lookup() in
	 * ta_done) keeps it
	 */
	s = syscall(SYS_add_key, "user", desc, der, len, KEY_SPEC_PROCESS_KEYRING);
	if (s < 0)
		return -errno;
	if (keyctl4(KEYCTL_SETPERM, s, HSD_PEER_KEY_PERM, 0) < 0) {
		int err = -errno;

		keyctl4(KEYCTL_UNLINK, s, KEY_SPEC_PROCESS_KEYRING, 0);
		return err;
	}
	*serial = (int32_t)s;
	*link_err = link_request_keyrings(*serial);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int psk_line(const char *s, size_t len, struct hsd_psk *e)
{
	const char *colon = memchr(s, ':', len);
	size_t idlen, hexlen, i;

	if (!colon)
		return -1;
	idlen = (size_t)(colon - s);
	hexlen = len - idlen - 1;
	if (!idlen || idlen >= sizeof(e->identity) || !hexlen || hexlen % 2 ||
	    hexlen / 2 > sizeof(e->key))
		return -1;
	memcpy(e->identity, s, idlen);
	e->identity[idlen] = 0;
	for (i = 0; i < hexlen / 2; i++) {
		int hi = hexval(colon[1 + 2 * i]), lo = hexval(colon[2 + 2 * i]);

		if (hi < 0 || lo < 0)
			return -1;
		e->key[i] = (uint8_t)(hi << 4 | lo);
	}
	e->key_len = hexlen / 2;
	e->serial = 0;
	return 0;
}

int hsd_psk_parse(const char *text, struct hsd_psk *out, int max,
		  int *bad_line)
{
	const char *p = text;
	int n = 0, lineno = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *s = p;

		lineno++;
		p += len + (nl ? 1 : 0);
		while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' ||
			       s[len - 1] == '\t'))
			len--;
		while (len && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		if (!len || *s == '#')
			continue;
		if (n == max || psk_line(s, len, &out[n])) {
			*bad_line = lineno;
			return -EINVAL;
		}
		n++;
	}
	return n;
}
