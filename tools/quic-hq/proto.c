// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-hq's two protocols behind one set of hooks (proto.h):
 *
 * hq-interop  the request is "GET /path\r\n" and FIN; the answer is the
 *             file's bytes and FIN; a missing file resets the stream.
 * h3          HTTP/3: each side opens a control stream with SETTINGS; the
 *             request is a HEADERS frame and FIN; the answer is HEADERS
 *             (:status, content-length), one DATA frame header, the
 *             file's bytes and FIN; a missing file is a 404.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto.h"

/* ---- hq-interop ------------------------------------------------------ */

static void h09_conn_init(struct hq_conn *c, int server)
{
	(void)server;
	memset(c, 0, sizeof(*c));
}

static void h09_conn_free(struct hq_conn *c)
{
	(void)c;
}

static int h09_preface(uint8_t *buf, size_t cap)
{
	(void)buf;
	(void)cap;
	return 0;
}

static int h09_uni(struct hq_conn *c, int64_t sid, const uint8_t *p, size_t n,
		   int fin, char *why, size_t wlen)
{
	(void)c, (void)sid, (void)p, (void)n, (void)fin, (void)why, (void)wlen;
	return 0;	/* hq-interop has none; ignore what comes */
}

static void h09_stream_init(struct hq_stream *s, int server)
{
	memset(s, 0, sizeof(*s));
	s->server = server;
}

static void h09_stream_free(struct hq_stream *s)
{
	(void)s;
}

static int h09_request(const struct hq_url *u, uint8_t *buf, size_t cap)
{
	int n = snprintf((char *)buf, cap, "GET %s\r\n", u->path);

	return n < 0 || (size_t)n >= cap ? -1 : n;
}

static int h09_response(struct hq_stream *s, const uint8_t *p, size_t n,
			int fin, hq_sink_fn sink, void *arg, char *why,
			size_t wlen)
{
	(void)s;
	if (n && sink(arg, p, n)) {
		snprintf(why, wlen, "writing: %s", strerror(errno));
		return -1;
	}
	return fin;
}

static int h09_on_request(struct hq_stream *s, const uint8_t *p, size_t n,
			  int fin, enum hq_method *m, char *path, size_t plen)
{
	int ret;

	if (n > sizeof(s->u.h09.line) - s->u.h09.len)
		return -HQ_ERR_NOTFOUND;
	memcpy(s->u.h09.line + s->u.h09.len, p, n);
	s->u.h09.len += n;
	ret = hq_parse_request(s->u.h09.line, s->u.h09.len, fin, path, plen);
	if (ret < 0)
		return -HQ_ERR_NOTFOUND;
	*m = HQ_GET;
	return ret;
}

static int h09_answer(struct hq_answer *a, int status, enum hq_method m)
{
	(void)m;
	a->hlen = 0;	/* no head: the content is the answer */
	return status == 200 ? 0 : -HQ_ERR_NOTFOUND;
}

const struct hq_proto hq_proto_h09 = {
	.alpn = HQ_ALPN,
	.conn_init = h09_conn_init,
	.conn_free = h09_conn_free,
	.preface = h09_preface,
	.uni = h09_uni,
	.stream_init = h09_stream_init,
	.stream_free = h09_stream_free,
	.request = h09_request,
	.response = h09_response,
	.on_request = h09_on_request,
	.answer = h09_answer,
};

/* ---- h3 -------------------------------------------------------------- */

static void h3_conn_init_hook(struct hq_conn *c, int server)
{
	h3_conn_init(&c->h3, server);
}

static void h3_conn_free_hook(struct hq_conn *c)
{
	h3_conn_free(&c->h3);
}

static int h3_uni(struct hq_conn *c, int64_t sid, const uint8_t *p, size_t n,
		  int fin, char *why, size_t wlen)
{
	int ret = h3_conn_uni(&c->h3, sid, p, n, fin);

	if (ret)
		snprintf(why, wlen, "unidirectional stream %lld: %s",
			 (long long)sid, h3_strerror(ret));
	return ret;
}

static void h3_stream_init(struct hq_stream *s, int server)
{
	memset(s, 0, sizeof(*s));
	s->server = server;
	if (!server)
		h3_resp_init(&s->u.resp);
}

static void h3_stream_free(struct hq_stream *s)
{
	if (s->server)
		h3_req_free(&s->u.req);
	else
		h3_resp_free(&s->u.resp);
}

/* :authority is the URL's host[:port]; 443 goes without saying. */
static int h3_request_hook(const struct hq_url *u, uint8_t *buf, size_t cap)
{
	char auth[HQ_HOST_MAX + HQ_PORT_MAX + 4];
	int v6 = strchr(u->host, ':') != NULL;

	snprintf(auth, sizeof(auth), "%s%s%s%s%s", v6 ? "[" : "", u->host,
		 v6 ? "]" : "", strcmp(u->port, "443") ? ":" : "",
		 strcmp(u->port, "443") ? u->port : "");
	return h3_request(buf, cap, "GET", auth, u->path);
}

static int h3_response_hook(struct hq_stream *s, const uint8_t *p, size_t n,
			    int fin, hq_sink_fn sink, void *arg, char *why,
			    size_t wlen)
{
	int ret = h3_resp_feed(&s->u.resp, p, n, fin, sink, arg);

	if (ret == -H3_ERR_STATUS)
		snprintf(why, wlen, "HTTP status %d", s->u.resp.status);
	else if (ret == -H3_INTERNAL_ERROR)
		snprintf(why, wlen, "writing: %s", strerror(errno));
	else if (ret < 0)
		snprintf(why, wlen, "bad response: %s", h3_strerror(ret));
	return ret;
}

static int h3_on_request(struct hq_stream *s, const uint8_t *p, size_t n,
			 int fin, enum hq_method *m, char *path, size_t plen)
{
	char method[16];
	int ret = h3_req_feed(&s->u.req, p, n, fin, method, sizeof(method),
			      path, plen);

	if (ret <= 0)
		return ret;
	*m = !strcmp(method, "GET") ? HQ_GET : !strcmp(method, "HEAD") ?
	     HQ_HEAD : HQ_OTHER;
	return 1;
}

static int h3_answer(struct hq_answer *a, int status, enum hq_method m)
{
	int64_t len = status == 200 ? (int64_t)a->size : 0;
	int n = h3_response_head(a->head, sizeof(a->head), status, len,
				 status == 200 && m == HQ_GET);

	if (n < 0)
		return n;
	a->hlen = (size_t)n;
	return 0;
}

const struct hq_proto hq_proto_h3 = {
	.alpn = HQ_ALPN_H3,
	.h3 = 1,
	.conn_init = h3_conn_init_hook,
	.conn_free = h3_conn_free_hook,
	.preface = h3_control_preface,
	.uni = h3_uni,
	.stream_init = h3_stream_init,
	.stream_free = h3_stream_free,
	.request = h3_request_hook,
	.response = h3_response_hook,
	.on_request = h3_on_request,
	.answer = h3_answer,
};

const struct hq_proto *hq_proto_find(const char *alpn)
{
	if (!strcmp(alpn, hq_proto_h09.alpn))
		return &hq_proto_h09;
	if (!strcmp(alpn, hq_proto_h3.alpn))
		return &hq_proto_h3;
	return NULL;
}

/* ---- files ----------------------------------------------------------- */

int hq_open_file(const char *root, const char *path, off_t *size)
{
	char name[PATH_MAX], real[PATH_MAX];
	size_t rlen = strlen(root);
	struct stat st;
	int fd;

	if (!hq_path_is_safe(path))
		return -1;
	if (snprintf(name, sizeof(name), "%s%s%s", root, path,
		     path[strlen(path) - 1] == '/' ? "index.html" : "") >=
	    (int)sizeof(name))
		return -1;
	/* symbolic links must not lead out of the root either */
	if (!realpath(name, real) || strncmp(real, root, rlen) ||
	    real[rlen] != '/')
		return -1;
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	*size = st.st_size;
	return fd;
}

int hq_serve(const struct hq_proto *p, const char *root, enum hq_method m,
	     const char *path, struct hq_answer *a)
{
	int ret;

	memset(a, 0, sizeof(*a));
	a->file = -1;
	a->status = 405;
	if (m != HQ_OTHER) {
		a->file = hq_open_file(root, path, &a->size);
		a->status = a->file >= 0 ? 200 : 404;
	}
	ret = p->answer(a, a->status, m);
	if (ret < 0 || a->status != 200 || m == HQ_HEAD) {
		if (a->file >= 0)
			close(a->file);
		a->file = -1;
		a->size = 0;
	}
	return ret;
}
