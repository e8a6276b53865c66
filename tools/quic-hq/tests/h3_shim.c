// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A flat C interface to quic-hq's h3 hooks (proto.h) for h3_over_aioquic.py,
 * which runs them over aioquic's QUIC (userspace) against real HTTP/3
 * peers while the kernel's streams are not there yet.  Built as
 * tests/h3_shim.so by "make h3-peer-check"; loaded with ctypes.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../proto.h"

static const struct hq_proto *p = &hq_proto_h3;

int shim_preface(uint8_t *buf, size_t cap)
{
	return p->preface(buf, cap);
}

void *shim_conn_new(int server)
{
	struct hq_conn *c = malloc(sizeof(*c));

	if (c)
		p->conn_init(c, server);
	return c;
}

int shim_uni(void *c, int64_t sid, const uint8_t *d, size_t n, int fin,
	     char *why, size_t wlen)
{
	return p->uni(c, sid, d, n, fin, why, wlen);
}

void *shim_stream_new(int server)
{
	struct hq_stream *s = malloc(sizeof(*s));

	if (s)
		p->stream_init(s, server);
	return s;
}

void shim_stream_free(void *s)
{
	p->stream_free(s);
	free(s);
}

int shim_request(const char *url, uint8_t *buf, size_t cap)
{
	struct hq_url u;
	char err[256];

	if (hq_parse_url(url, &u, err, sizeof(err)))
		return -1;
	return p->request(&u, buf, cap);
}

static int to_fd(void *arg, const uint8_t *d, size_t n)
{
	int fd = *(int *)arg;

	while (n) {
		ssize_t k = write(fd, d, n);

		if (k <= 0)
			return -1;
		d += k;
		n -= (size_t)k;
	}
	return 0;
}

int shim_response(void *s, const uint8_t *d, size_t n, int fin, int fd,
		  char *why, size_t wlen)
{
	return p->response(s, d, n, fin, to_fd, &fd, why, wlen);
}

/* 1 with *method (0 GET, 1 HEAD, 2 other) and path; 0; -code */
int shim_on_request(void *s, const uint8_t *d, size_t n, int fin,
		    int *method, char *path, size_t plen)
{
	enum hq_method m;
	int ret = p->on_request(s, d, n, fin, &m, path, plen);

	*method = (int)m;
	return ret;
}

/* The answer: head bytes into head, the open file (or -1) and its size. */
int shim_serve(const char *root, int method, const char *path, uint8_t *head,
	       size_t cap, size_t *hlen, int *fd, int64_t *size, int *status)
{
	struct hq_answer a;
	int ret = hq_serve(p, root, (enum hq_method)method, path, &a);

	if (ret < 0)
		return ret;
	if (a.hlen > cap) {
		if (a.file >= 0)
			close(a.file);
		return -H3_INTERNAL_ERROR;
	}
	memcpy(head, a.head, a.hlen);
	*hlen = a.hlen;
	*fd = a.file;
	*size = a.size;
	*status = a.status;
	return 0;
}
