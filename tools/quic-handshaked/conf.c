// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration file: "name = value" lines, '#' comments, blank lines.
 *
 *   cert = /etc/quic-handshaked/cert.pem   certificate chain (PEM) used when
 *                                          the request names no key serial
 *   key = /etc/quic-handshaked/key.pem     its private key (PEM)
 *   ca = /etc/quic-handshaked/ca.pem       CAs that verify peers (default:
 *                                          the system trust store)
 *   psk = /etc/quic-handshaked/psk.txt     PSKs, "identity:hexkey" lines
 *   timeout = 30000                        ms, when the request has none
 *   max-handshakes = 64                    handshakes at the same time
 *   verbose = 0                            1: libquic's messages too
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsd.h"

void hsd_conf_defaults(struct hsd_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->timeout_ms = HSD_DEFAULT_TIMEOUT_MS;
	c->max_handshakes = HSD_DEFAULT_MAX;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static int parse_uint(const char *v, unsigned int min, unsigned int max,
		      unsigned int *out)
{
	unsigned long n;
	char *end;

	if (!*v || *v == '-')
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < min || n > max)
		return -1;
	*out = (unsigned int)n;
	return 0;
}

static int set_path(char *dst, const char *v)
{
	size_t len = strlen(v);

	if (!len || len >= HSD_PATH_MAX)
		return -1;
	memcpy(dst, v, len + 1);
	return 0;
}

static int conf_line(struct hsd_conf *c, char *line, const char **why)
{
	char *eq = strchr(line, '='), *name, *value;
	unsigned int u;

	if (!eq) {
		*why = "expected name = value";
		return -1;
	}
	*eq = 0;
	name = trim(line);
	value = trim(eq + 1);
	*why = "bad value";
	if (!strcmp(name, "cert"))
		return set_path(c->cert, value);
	if (!strcmp(name, "key"))
		return set_path(c->key, value);
	if (!strcmp(name, "ca"))
		return set_path(c->ca, value);
	if (!strcmp(name, "psk"))
		return set_path(c->psk, value);
	if (!strcmp(name, "timeout")) {
		if (parse_uint(value, 1, 3600000, &u))
			return -1;
		c->timeout_ms = u;
		return 0;
	}
	if (!strcmp(name, "max-handshakes")) {
		if (parse_uint(value, 1, 4096, &u))
			return -1;
		c->max_handshakes = u;
		return 0;
	}
	if (!strcmp(name, "verbose")) {
		if (parse_uint(value, 0, 3, &u))
			return -1;
		c->verbose = (int)u;
		return 0;
	}
	*why = "unknown setting";
	return -1;
}

int hsd_conf_parse(struct hsd_conf *c, const char *text, char *err,
		   size_t errlen)
{
	char line[HSD_PATH_MAX + 64];
	const char *p = text, *why;
	int lineno = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *s;

		lineno++;
		if (len >= sizeof(line)) {
			snprintf(err, errlen, "line %d: too long", lineno);
			return -1;
		}
		memcpy(line, p, len);
		line[len] = 0;
		p += len + (nl ? 1 : 0);
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		if (conf_line(c, s, &why)) {
			snprintf(err, errlen, "line %d: %s", lineno, why);
			return -1;
		}
	}
	if (!c->cert[0] != !c->key[0]) {
		snprintf(err, errlen, "cert and key go together");
		return -1;
	}
	return 0;
}

int hsd_conf_load(struct hsd_conf *c, const char *path, int optional,
		  char *err, size_t errlen)
{
	char *text;
	size_t len = 0;
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f) {
		if (optional && errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	text = malloc(1 << 20);
	if (text)
		len = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	text[len] = 0;
	ret = hsd_conf_parse(c, text, err, errlen);
	free(text);
	return ret;
}
