// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-hq client --session-file: what a later connection needs to resume
 * the TLS session and send 0-RTT, kept in a text file:
 *
 *	quic-hq session 1
 *	alpn hq-interop
 *	tls 0a1b...		the TLS session data (quic_session_get_data())
 *	tp 0000...		the server's transport parameters:
 *				struct quic_transport_param, remote = 1
 *
 * in hex, one field a line, in this order.  A file that is not exactly
 * this is refused whole (no half-read session).  Written to PATH.tmp with
 * mode 0600 (it holds a resumption secret), then renamed over PATH.
 * Nothing here touches a socket: the host tests use it as it is.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "hq.h"

#define SESS_MAGIC	"quic-hq session 1"
#define SESS_FILE_MAX	(2 * (HQ_SESS_TLS_MAX + 64) + 4096)

static const char hexdig[] = "0123456789abcdef";

static int unhex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "NAME HEX\n" at *p: @n bytes at most into @out; the count, or -1. */
static long field(const char **p, const char *end, const char *name,
		  uint8_t *out, size_t n)
{
	size_t nl = strlen(name), i = 0;
	const char *s = *p;

	if ((size_t)(end - s) < nl + 1 || memcmp(s, name, nl) || s[nl] != ' ')
		return -1;
	for (s += nl + 1; s < end && *s != '\n'; s += 2) {
		int hi, lo;

		if (end - s < 2 || i == n)
			return -1;
		hi = unhex(s[0]);
		lo = unhex(s[1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i++] = (uint8_t)(hi << 4 | lo);
	}
	if (s == end)
		return -1;	/* every line ends with \n */
	*p = s + 1;
	return (long)i;
}

int hq_sess_decode(const char *buf, size_t len, struct hq_sess *s)
{
	const char *p = buf, *end = buf + len, *nl;
	size_t ml = strlen(SESS_MAGIC);
	long n;

	memset(s, 0, sizeof(*s));
	if (len < ml + 1 || memcmp(p, SESS_MAGIC "\n", ml + 1))
		return -1;
	p += ml + 1;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || (size_t)(nl - p) < 6 || memcmp(p, "alpn ", 5) ||
	    (size_t)(nl - p - 5) >= sizeof(s->alpn) || memchr(p, 0, (size_t)(nl - p)))
		return -1;
	memcpy(s->alpn, p + 5, (size_t)(nl - p - 5));
	p = nl + 1;
	n = field(&p, end, "tls", s->tls, sizeof(s->tls));
	if (n <= 0)
		return -1;
	s->tls_len = (size_t)n;
	n = field(&p, end, "tp", (uint8_t *)&s->tp, sizeof(s->tp));
	if (n != (long)sizeof(s->tp) || !s->tp.remote || p != end)
		return -1;
	return 0;
}

/* The file's text; the length, or -1 if @cap is too small. */
long hq_sess_encode(const struct hq_sess *s, char *buf, size_t cap)
{
	const uint8_t *tp = (const uint8_t *)&s->tp;
	size_t off, i;
	int n;

	n = snprintf(buf, cap, SESS_MAGIC "\nalpn %s\ntls ", s->alpn);
	if (n < 0 || (size_t)n >= cap)
		return -1;
	off = (size_t)n;
	if (cap - off < 2 * (s->tls_len + sizeof(s->tp)) + 8)
		return -1;
	for (i = 0; i < s->tls_len; i++) {
		buf[off++] = hexdig[s->tls[i] >> 4];
		buf[off++] = hexdig[s->tls[i] & 15];
	}
	memcpy(buf + off, "\ntp ", 4);
	off += 4;
	for (i = 0; i < sizeof(s->tp); i++) {
		buf[off++] = hexdig[tp[i] >> 4];
		buf[off++] = hexdig[tp[i] & 15];
	}
	buf[off++] = '\n';
	return (long)off;
}

/* 0, -ENOENT (no file: a first run), or another negative errno. */
int hq_sess_load(const char *path, struct hq_sess *s)
{
	static char buf[SESS_FILE_MAX];
	size_t len;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	len = fread(buf, 1, sizeof(buf), f);
	if (ferror(f) || !feof(f)) {
		fclose(f);
		return -EFBIG;
	}
	fclose(f);
	return hq_sess_decode(buf, len, s) ? -EINVAL : 0;
}

int hq_sess_save(const char *path, const struct hq_sess *s)
{
	static char buf[SESS_FILE_MAX];
	char tmp[4096 + 8];
	long len = hq_sess_encode(s, buf, sizeof(buf));
	ssize_t w;
	int fd, err = 0;

	if (len < 0)
		return -EFBIG;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	w = write(fd, buf, (size_t)len);
	if (w != len)
		err = w < 0 ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
