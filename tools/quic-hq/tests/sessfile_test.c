// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests of quic-hq's --session-file format (sessfile.c), TAP. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../hq.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - quic-hq session file: %s\n", cond ? "" : "not ", n, name);
}

static void sample(struct hq_sess *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	strcpy(s->alpn, "hq-interop");
	s->tls_len = 300;
	for (i = 0; i < s->tls_len; i++)
		s->tls[i] = (uint8_t)(i * 7 + 1);
	s->tp.remote = 1;
	s->tp.max_idle_timeout = 30000000;
	s->tp.max_data = 1 << 20;
	s->tp.max_streams_bidi = 100;
}

/* The encoded sample with byte @at changed to @c (or cut there if c < 0). */
static int decodes_with(size_t at, int c)
{
	static char buf[32768];
	struct hq_sess s, t;
	long len;

	sample(&s);
	len = hq_sess_encode(&s, buf, sizeof(buf));
	if (len < 0 || at >= (size_t)len)
		return -2;
	if (c < 0)
		len = (long)at;
	else
		buf[at] = (char)c;
	return hq_sess_decode(buf, (size_t)len, &t);
}

int main(void)
{
	static char buf[32768];
	static struct hq_sess s, t;
	char path[] = "/tmp/quic-hq-sess.XXXXXX";
	struct stat st;
	long len;
	int fd;

	sample(&s);
	len = hq_sess_encode(&s, buf, sizeof(buf));
	ok(len > 0 && !hq_sess_decode(buf, (size_t)len, &t) &&
	   !strcmp(t.alpn, "hq-interop") && t.tls_len == 300 &&
	   !memcmp(t.tls, s.tls, 300) && !memcmp(&t.tp, &s.tp, sizeof(s.tp)),
	   "encode, decode: the same session");
	ok(!strncmp(buf, "quic-hq session 1\nalpn hq-interop\ntls 01080f", 44),
	   "text: magic, alpn, tls hex");
	ok(hq_sess_encode(&s, buf, 100) == -1, "encode into a short buffer: -1");
	ok(decodes_with(0, 'Q') == -1 && decodes_with(16, '2') == -1,
	   "another magic or version: refused");
	ok(decodes_with(40, 'g') == -1 && decodes_with(41, '\n') == -1,
	   "a bad hex digit or an odd hex count: refused");
	len = hq_sess_encode(&s, buf, sizeof(buf));
	ok(decodes_with((size_t)len - 1, -1) == -1 &&
	   decodes_with((size_t)len - 3, -1) == -1 && decodes_with(200, -1) == -1,
	   "truncated (no last newline, half a field): refused");
	memcpy(buf + len, "x\n", 2);
	ok(hq_sess_decode(buf, (size_t)len + 2, &t) == -1, "trailing bytes: refused");
	s.tp.remote = 0;
	len = hq_sess_encode(&s, buf, sizeof(buf));
	ok(hq_sess_decode(buf, (size_t)len, &t) == -1,
	   "transport parameters without remote = 1: refused");
	sample(&s);
	s.tls_len = 0;
	len = hq_sess_encode(&s, buf, sizeof(buf));
	ok(hq_sess_decode(buf, (size_t)len, &t) == -1, "no TLS session data: refused");

	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	unlink(path);
	ok(hq_sess_load(path, &t) == -ENOENT, "no file yet: -ENOENT");
	sample(&s);
	ok(!hq_sess_save(path, &s) && !stat(path, &st) &&
	   (st.st_mode & 0777) == 0600 && !hq_sess_load(path, &t) &&
	   t.tls_len == s.tls_len && !memcmp(&t.tp, &s.tp, sizeof(s.tp)),
	   "saved with mode 0600, loaded back");
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd >= 0) {
		if (write(fd, "quic-hq session 1\n", 18) != 18)
			fd = -1;
		close(fd);
	}
	ok(hq_sess_load(path, &t) == -EINVAL, "a damaged file: -EINVAL");
	unlink(path);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
