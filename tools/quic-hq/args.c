// SPDX-License-Identifier: GPL-2.0-or-later
/* quic-hq: command line, URL and request parsing (host-testable). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hq.h"

#define ERR(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

double hq_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_port(const char *s, size_t n, char *port)
{
	unsigned long v = 0;
	size_t i;

	if (!n || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (!v || v > 65535)
		return -1;
	snprintf(port, HQ_PORT_MAX, "%lu", v);
	return 0;
}

/* "host", "host:port", "[v6]" or "[v6]:port" of n bytes */
static int split_hostport(const char *s, size_t n, char *host, char *port,
			  const char *defport)
{
	const char *colon;
	size_t hlen;

	if (!n)
		return -1;
	if (s[0] == '[') {
		const char *end = memchr(s, ']', n);

		if (!end || end == s + 1)
			return -1;
		hlen = (size_t)(end - s - 1);
		if (hlen >= HQ_HOST_MAX)
			return -1;
		memcpy(host, s + 1, hlen);
		host[hlen] = 0;
		if (end + 1 == s + n) {
			if (!defport)
				return -1;
			snprintf(port, HQ_PORT_MAX, "%s", defport);
			return 0;
		}
		if (end[1] != ':')
			return -1;
		return parse_port(end + 2, (size_t)(s + n - end - 2), port);
	}
	colon = memchr(s, ':', n);
	if (colon && memchr(colon + 1, ':', (size_t)(s + n - colon - 1)))
		return -1;	/* bare IPv6 needs brackets */
	hlen = colon ? (size_t)(colon - s) : n;
	if (!hlen || hlen >= HQ_HOST_MAX)
		return -1;
	memcpy(host, s, hlen);
	host[hlen] = 0;
	if (!colon) {
		if (!defport)
			return -1;
		snprintf(port, HQ_PORT_MAX, "%s", defport);
		return 0;
	}
	return parse_port(colon + 1, (size_t)(s + n - colon - 1), port);
}

int hq_parse_url(const char *s, struct hq_url *u, char *err, size_t errlen)
{
	const char *auth, *slash;
	size_t n;

	if (strncmp(s, "https://", 8))
		ERR("%s: only https:// URLs", s);
	auth = s + 8;
	slash = strchr(auth, '/');
	n = slash ? (size_t)(slash - auth) : strlen(auth);
	if (memchr(auth, '@', n))
		ERR("%s: user info not supported", s);
	if (split_hostport(auth, n, u->host, u->port, "443"))
		ERR("%s: bad host or port", s);
	if (!slash)
		slash = "/";
	if (strlen(slash) >= HQ_PATH_MAX)
		ERR("%s: path too long", s);
	if (strpbrk(slash, " \r\n\t"))
		ERR("%s: spaces or line breaks in the path", s);
	snprintf(u->path, sizeof(u->path), "%s", slash);
	return 0;
}

int hq_parse_hostport(const char *s, char *host, char *port, char *err,
		      size_t errlen)
{
	if (split_hostport(s, strlen(s), host, port, NULL))
		ERR("%s: expected ADDR:PORT or [ADDR]:PORT", s);
	return 0;
}

/* The file name a path is saved as: its last component, index.html for a
 * directory.  Returns -1 for names that are not plain file names.
 */
int hq_out_name(const char *path, char *name, size_t len)
{
	const char *base, *end;
	size_t n;

	end = strpbrk(path, "?#");
	if (!end)
		end = path + strlen(path);
	base = end;
	while (base > path && base[-1] != '/')
		base--;
	n = (size_t)(end - base);
	if (!n) {
		snprintf(name, len, "index.html");
		return 0;
	}
	if (n >= len || (n == 1 && base[0] == '.') ||
	    (n == 2 && base[0] == '.' && base[1] == '.'))
		return -1;
	memcpy(name, base, n);
	name[n] = 0;
	return 0;
}

/* Returns 1 with path set when buf holds a whole "GET /path" request line
 * (ended by CRLF or LF, or by the stream's FIN), 0 when more is needed, -1
 * for anything else.
 */
int hq_parse_request(const char *buf, size_t len, int fin, char *path,
		     size_t pathlen)
{
	const char *eol = memchr(buf, '\n', len);
	size_t n;

	if (!eol && !fin)
		return len > HQ_PATH_MAX + 8 ? -1 : 0;
	n = eol ? (size_t)(eol - buf) : len;
	if (n && buf[n - 1] == '\r')
		n--;
	if (n < 5 || memcmp(buf, "GET /", 5))
		return -1;
	buf += 4;
	n -= 4;
	if (n >= pathlen || memchr(buf, 0, n) || memchr(buf, ' ', n) ||
	    memchr(buf, '\r', n))
		return -1;
	memcpy(path, buf, n);
	path[n] = 0;
	return 1;
}

/* A request path may not leave the root: no ".." component, no NUL, no
 * backslash tricks.  (The server also checks the resolved path.)
 */
int hq_path_is_safe(const char *path)
{
	const char *p = path;

	if (*p != '/')
		return 0;
	while (*p) {
		const char *q;
		size_t n;

		while (*p == '/')
			p++;
		q = strchr(p, '/');
		n = q ? (size_t)(q - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		if (memchr(p, '\\', n))
			return 0;
		p += n;
	}
	return 1;
}

/* A byte count: digits with an optional K, M or G (powers of 1024), at
 * most 1 TB, more than 0.  Returns 0, or -1 for anything else.
 */
int hq_parse_size(const char *s, uint64_t *v)
{
	uint64_t n = 0, mult = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		n = n * 10 + (uint64_t)(*p++ - '0');
		if (n > (1ULL << 40))
			return -1;
	}
	switch (*p) {
	case 'K':
		mult = 1ULL << 10;
		p++;
		break;
	case 'M':
		mult = 1ULL << 20;
		p++;
		break;
	case 'G':
		mult = 1ULL << 30;
		p++;
		break;
	}
	if (*p || !n || n > (1ULL << 40) / mult)
		return -1;
	*v = n * mult;
	return 0;
}

/* --alpn NAME: one of the two protocols quic-hq speaks. */
static int parse_alpn(const char *s, const char **alpn)
{
	if (!strcmp(s, HQ_ALPN))
		*alpn = HQ_ALPN;
	else if (!strcmp(s, HQ_ALPN_H3))
		*alpn = HQ_ALPN_H3;
	else
		return -1;
	return 0;
}

/* --version NAME: v1 (0x1) or v2 (0x6b3343cf, RFC 9369). */
int hq_parse_version(const char *s, uint32_t *v)
{
	if (!strcmp(s, "v1"))
		*v = 0x1;
	else if (!strcmp(s, "v2"))
		*v = 0x6b3343cf;
	else
		return -1;
	return 0;
}

const char *hq_version_name(uint32_t v)
{
	return v == 0x6b3343cf ? "v2" : v == 0x1 ? "v1" : "unknown";
}

int hq_parse_idle_timeout(const char *s, unsigned int *secs)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v || v > HQ_IDLE_TIMEOUT_MAX)
		return -1;
	*secs = v;
	return 0;
}

int hq_client_args(int argc, char **argv, struct hq_client_opts *o, char *err,
		   size_t errlen)
{
	int i, j;

	memset(o, 0, sizeof(*o));
	o->out = ".";
	o->alpn = HQ_ALPN;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--alpn")) {
			if (++i == argc)
				ERR("--alpn needs %s or %s", HQ_ALPN, HQ_ALPN_H3);
			if (parse_alpn(argv[i], &o->alpn))
				ERR("--alpn %s: only %s or %s", argv[i], HQ_ALPN,
				    HQ_ALPN_H3);
		} else if (!strcmp(a, "--ca")) {
			if (++i == argc)
				ERR("--ca needs a file");
			o->ca = argv[i];
		} else if (!strcmp(a, "--insecure")) {
			o->insecure = 1;
		} else if (!strcmp(a, "--key-update")) {
			if (++i == argc)
				ERR("--key-update needs a byte count");
			if (hq_parse_size(argv[i], &o->key_update))
				ERR("--key-update %s: expected bytes (with K, M or G), "
				    "more than 0", argv[i]);
		} else if (!strcmp(a, "--migrate")) {
			if (++i == argc)
				ERR("--migrate needs a byte count");
			if (hq_parse_size(argv[i], &o->migrate))
				ERR("--migrate %s: expected bytes (with K, M or G), "
				    "more than 0", argv[i]);
		} else if (!strcmp(a, "--session-file")) {
			if (++i == argc)
				ERR("--session-file needs a file");
			o->session_file = argv[i];
		} else if (!strcmp(a, "--0rtt")) {
			o->early = 1;
		} else if (!strcmp(a, "--out")) {
			if (++i == argc)
				ERR("--out needs a directory");
			o->out = argv[i];
		} else if (!strcmp(a, "--token-file")) {
			if (++i == argc)
				ERR("--token-file needs a file");
			o->token_file = argv[i];
		} else if (!strcmp(a, "--version")) {
			if (++i == argc || hq_parse_version(argv[i], &o->version))
				ERR("--version needs v1 or v2");
		} else if (!strcmp(a, "--idle-timeout")) {
			if (++i == argc ||
			    hq_parse_idle_timeout(argv[i], &o->idle_timeout))
				ERR("--idle-timeout needs seconds, 1 to %d",
				    HQ_IDLE_TIMEOUT_MAX);
		} else if (a[0] == '-' && a[1]) {
			ERR("unknown option %s", a);
		} else {
			struct hq_url *u;

			if (o->nurls == HQ_MAX_URLS)
				ERR("too many URLs (at most %d)", HQ_MAX_URLS);
			u = &o->urls[o->nurls];
			if (hq_parse_url(a, u, err, errlen))
				return -1;
			if (o->nurls && (strcmp(u->host, o->urls[0].host) ||
					 strcmp(u->port, o->urls[0].port)))
				ERR("%s: every URL must name the same host and port", a);
			if (hq_out_name(u->path, o->names[o->nurls],
					sizeof(o->names[0])))
				ERR("%s: no usable file name in the path", a);
			for (j = 0; j < o->nurls; j++)
				if (!strcmp(o->names[j], o->names[o->nurls]))
					ERR("%s: file name %s given twice", a,
					    o->names[j]);
			o->nurls++;
		}
	}
	if (o->ca && o->insecure)
		ERR("--ca and --insecure exclude each other");
	if (o->early && !o->session_file)
		ERR("--0rtt needs --session-file");
	if (!o->nurls)
		ERR("no URL given");
	return 0;
}

int hq_server_args(int argc, char **argv, struct hq_server_opts *o, char *err,
		   size_t errlen)
{
	int i, listen = 0;

	memset(o, 0, sizeof(*o));
	o->alpn = HQ_ALPN;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char **val = NULL;

		if (!strcmp(a, "--alpn")) {
			if (++i == argc)
				ERR("--alpn needs %s or %s", HQ_ALPN, HQ_ALPN_H3);
			if (parse_alpn(argv[i], &o->alpn))
				ERR("--alpn %s: only %s or %s", argv[i], HQ_ALPN,
				    HQ_ALPN_H3);
			continue;
		}
		if (!strcmp(a, "--listen")) {
			if (++i == argc)
				ERR("--listen needs ADDR:PORT");
			if (hq_parse_hostport(argv[i], o->host, o->port, err, errlen))
				return -1;
			listen = 1;
			continue;
		}
		if (!strcmp(a, "--key-update")) {
			if (++i == argc)
				ERR("--key-update needs a byte count");
			if (hq_parse_size(argv[i], &o->key_update))
				ERR("--key-update %s: expected bytes (with K, M or G), "
				    "more than 0", argv[i]);
			continue;
		}
		if (!strcmp(a, "--version")) {
			if (++i == argc || hq_parse_version(argv[i], &o->version))
				ERR("--version needs v1 or v2");
			continue;
		}
		if (!strcmp(a, "--idle-timeout")) {
			if (++i == argc ||
			    hq_parse_idle_timeout(argv[i], &o->idle_timeout))
				ERR("--idle-timeout needs seconds, 1 to %d",
				    HQ_IDLE_TIMEOUT_MAX);
			continue;
		}
		if (!strcmp(a, "--retry")) {
			o->retry = 1;
			continue;
		}
		if (!strcmp(a, "--cc")) {
			static const char * const cc[] = { "reno", "cubic", "bbr" };
			int k;

			if (++i == argc)
				ERR("--cc needs reno, cubic or bbr");
			for (k = 0; k < 3 && strcmp(argv[i], cc[k]); k++)
				;
			if (k == 3)
				ERR("--cc needs reno, cubic or bbr");
			o->cc = k + 1;
			continue;
		}
		if (!strcmp(a, "--no-0rtt")) {
			o->no_early = 1;
			continue;
		}
		if (!strcmp(a, "--cert"))
			val = &o->cert;
		else if (!strcmp(a, "--ticket-key"))
			val = &o->ticket_key;
		else if (!strcmp(a, "--key"))
			val = &o->key;
		else if (!strcmp(a, "--root"))
			val = &o->root;
		else
			ERR("unknown argument %s", a);
		if (++i == argc)
			ERR("%s needs a value", a);
		*val = argv[i];
	}
	if (!listen || !o->cert || !o->key || !o->root)
		ERR("--listen, --cert, --key and --root are all needed");
	return 0;
}
