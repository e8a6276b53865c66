// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests of quic-hq's argument, URL and request parsing (TAP). */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/quic.h>

#include "../hq.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - quic-hq: %s\n", cond ? "" : "not ", n, name);
}

static int url(const char *s, const char *host, const char *port, const char *path)
{
	struct hq_url u;
	char err[256];

	if (hq_parse_url(s, &u, err, sizeof(err)))
		return !host;
	return host && !strcmp(u.host, host) && !strcmp(u.port, port) &&
	       !strcmp(u.path, path);
}

static int req(const char *s, int fin, int want, const char *path)
{
	char p[HQ_PATH_MAX];
	int ret = hq_parse_request(s, strlen(s), fin, p, sizeof(p));

	return ret == want && (ret != 1 || !strcmp(p, path));
}

static int name(const char *path, const char *want)
{
	char buf[256];

	if (hq_out_name(path, buf, sizeof(buf)))
		return !want;
	return want && !strcmp(buf, want);
}

int main(void)
{
	static struct hq_client_opts co;
	struct hq_server_opts so;
	char err[256], host[HQ_HOST_MAX], port[HQ_PORT_MAX];

	ok(url("https://example.org:4433/a/b.bin", "example.org", "4433", "/a/b.bin") &&
	   url("https://example.org", "example.org", "443", "/") &&
	   url("https://[::1]:443/x", "::1", "443", "/x") &&
	   url("https://10.0.0.1:9/", "10.0.0.1", "9", "/"),
	   "URLs with host, port, IPv6 and default port and path");
	ok(url("http://example.org/", NULL, NULL, NULL) &&
	   url("https://:443/", NULL, NULL, NULL) &&
	   url("https://h:0/", NULL, NULL, NULL) &&
	   url("https://h:65536/", NULL, NULL, NULL) &&
	   url("https://h:12a/", NULL, NULL, NULL) &&
	   url("https://::1/", NULL, NULL, NULL) &&
	   url("https://[::1/", NULL, NULL, NULL) &&
	   url("https://u@h/", NULL, NULL, NULL) &&
	   url("https://h/a b", NULL, NULL, NULL),
	   "bad URLs are refused");
	ok(!hq_parse_hostport("0.0.0.0:4433", host, port, err, sizeof(err)) &&
	   !strcmp(host, "0.0.0.0") && !strcmp(port, "4433") &&
	   !hq_parse_hostport("[::]:443", host, port, err, sizeof(err)) &&
	   !strcmp(host, "::") && !strcmp(port, "443") &&
	   hq_parse_hostport("0.0.0.0", host, port, err, sizeof(err)) &&
	   hq_parse_hostport(":::443", host, port, err, sizeof(err)),
	   "--listen ADDR:PORT parsing");
	ok(req("GET /index.html\r\n", 0, 1, "/index.html") &&
	   req("GET /a/b\n", 0, 1, "/a/b") &&
	   req("GET /x", 1, 1, "/x") &&
	   req("GET /x", 0, 0, NULL) &&
	   req("GE", 0, 0, NULL) &&
	   req("POST /x\r\n", 0, -1, NULL) &&
	   req("GET x\r\n", 0, -1, NULL) &&
	   req("GET /a b\r\n", 0, -1, NULL) &&
	   req("", 1, -1, NULL),
	   "request lines");
	ok(hq_path_is_safe("/a/b.txt") && hq_path_is_safe("/a/..b") &&
	   hq_path_is_safe("/") && !hq_path_is_safe("/../etc/passwd") &&
	   !hq_path_is_safe("/a/../../b") && !hq_path_is_safe("/a/..") &&
	   !hq_path_is_safe("a") && !hq_path_is_safe("/a\\..\\b"),
	   "paths escaping the root are refused");
	ok(name("/a/b.bin", "b.bin") && name("/", "index.html") &&
	   name("/dir/", "index.html") && name("/f?x=1", "f") && name("/..", NULL),
	   "output file names");
	{
		char *a1[] = { "--ca", "ca.pem", "--out", "/tmp", "https://h:1/a",
			       "https://h:1/b" };
		char *a2[] = { "--ca", "ca.pem", "--insecure", "https://h/a" };
		char *a3[] = { "https://h:1/a", "https://g:1/b" };
		char *a4[] = { "https://h/x/a", "https://h/y/a" };
		char *a5[] = { "--bogus", "https://h/a" };
		char *a6[] = { "--out" };

		ok(!hq_client_args(6, a1, &co, err, sizeof(err)) && co.nurls == 2 &&
		   !strcmp(co.ca, "ca.pem") && !strcmp(co.out, "/tmp") &&
		   !co.insecure && !strcmp(co.names[1], "b") &&
		   !strcmp(co.alpn, "hq-interop"),
		   "client options and URLs, ALPN hq-interop by default");
		ok(hq_client_args(4, a2, &co, err, sizeof(err)) &&
		   hq_client_args(2, a3, &co, err, sizeof(err)) &&
		   hq_client_args(2, a4, &co, err, sizeof(err)) &&
		   hq_client_args(2, a5, &co, err, sizeof(err)) &&
		   hq_client_args(1, a6, &co, err, sizeof(err)) &&
		   hq_client_args(0, a6, &co, err, sizeof(err)),
		   "client: --ca with --insecure, two hosts, same file twice, "
		   "unknown option, missing value, no URL are refused");
	}
	{
		char *a1[] = { "--listen", "[::1]:4433", "--cert", "c", "--key", "k",
			       "--root", "/srv" };
		char *a2[] = { "--listen", "[::1]:4433", "--cert", "c", "--key", "k" };
		char *a3[] = { "--listen", "x", "--cert", "c", "--key", "k", "--root", "r" };

		ok(!hq_server_args(8, a1, &so, err, sizeof(err)) &&
		   !strcmp(so.host, "::1") && !strcmp(so.port, "4433") &&
		   !strcmp(so.root, "/srv") && !strcmp(so.key, "k"),
		   "server options");
		ok(hq_server_args(6, a2, &so, err, sizeof(err)) &&
		   hq_server_args(8, a3, &so, err, sizeof(err)),
		   "server: missing --root and bad --listen are refused");
	}
	{
		char *c1[] = { "--alpn", "h3", "--insecure", "https://h/a" };
		char *c2[] = { "https://h/a", "--alpn", "hq-interop" };
		char *c3[] = { "--alpn", "h2", "https://h/a" };
		char *c4[] = { "https://h/a", "--alpn" };
		char *s1[] = { "--listen", "[::1]:4433", "--cert", "c", "--key", "k",
			       "--root", "/srv", "--alpn", "h3" };
		char *s2[] = { "--alpn", "hq", "--listen", "[::1]:4433", "--cert", "c",
			       "--key", "k", "--root", "/srv" };

		ok(!hq_client_args(4, c1, &co, err, sizeof(err)) &&
		   !strcmp(co.alpn, "h3") && co.insecure && co.nurls == 1 &&
		   !hq_client_args(3, c2, &co, err, sizeof(err)) &&
		   !strcmp(co.alpn, "hq-interop"),
		   "client --alpn h3 and hq-interop, before or after URLs");
		ok(hq_client_args(3, c3, &co, err, sizeof(err)) &&
		   strstr(err, "h2") && hq_client_args(2, c4, &co, err, sizeof(err)),
		   "client: unknown ALPN and --alpn without a value are refused");
		ok(!hq_server_args(10, s1, &so, err, sizeof(err)) &&
		   !strcmp(so.alpn, "h3") &&
		   !hq_server_args(8, s1, &so, err, sizeof(err)) &&
		   !strcmp(so.alpn, "hq-interop") &&
		   hq_server_args(10, s2, &so, err, sizeof(err)) &&
		   hq_server_args(9, s1, &so, err, sizeof(err)),
		   "server --alpn h3, hq-interop by default; unknown or missing "
		   "ALPN refused");
	}
	{
		char *c1[] = { "--key-update", "1M", "https://h/a" };
		char *c2[] = { "https://h/a", "--key-update" };
		char *c3[] = { "--key-update", "0", "https://h/a" };
		char *s1[] = { "--listen", "[::1]:4433", "--cert", "c", "--key", "k",
			       "--root", "/srv", "--key-update", "65536" };
		char *s2[] = { "--listen", "[::1]:4433", "--cert", "c", "--key", "k",
			       "--root", "/srv", "--key-update", "1X" };
		uint64_t v = 0;

		ok(!hq_parse_size("1", &v) && v == 1 &&
		   !hq_parse_size("64K", &v) && v == 65536 &&
		   !hq_parse_size("3M", &v) && v == 3 << 20 &&
		   !hq_parse_size("2G", &v) && v == 2ULL << 30 &&
		   !hq_parse_size("1024G", &v) && v == 1ULL << 40 &&
		   hq_parse_size("1025G", &v) && hq_parse_size("0", &v) &&
		   hq_parse_size("", &v) && hq_parse_size("-1", &v) &&
		   hq_parse_size("1k", &v) && hq_parse_size("1MB", &v) &&
		   hq_parse_size("99999999999999999999999", &v),
		   "byte counts: digits with K, M, G; 0, too big and junk refused");
		ok(!hq_client_args(3, c1, &co, err, sizeof(err)) &&
		   co.key_update == 1 << 20 &&
		   !hq_client_args(1, c1 + 2, &co, err, sizeof(err)) &&
		   !co.key_update &&
		   hq_client_args(2, c2, &co, err, sizeof(err)) &&
		   hq_client_args(3, c3, &co, err, sizeof(err)) &&
		   strstr(err, "--key-update") &&
		   !hq_server_args(10, s1, &so, err, sizeof(err)) &&
		   so.key_update == 65536 &&
		   !hq_server_args(8, s1, &so, err, sizeof(err)) && !so.key_update &&
		   hq_server_args(10, s2, &so, err, sizeof(err)) &&
		   hq_server_args(9, s1, &so, err, sizeof(err)),
		   "--key-update BYTES for client and server, off by default; "
		   "missing or bad values refused");
	}
	{
		char *c1[] = { "--token-file", "/tmp/t", "https://h/a" };
		char *c2[] = { "https://h/a", "--token-file" };
		char *s1[] = { "--listen", "[::1]:4433", "--cert", "c", "--key", "k",
			       "--root", "/srv", "--retry" };

		ok(!hq_client_args(3, c1, &co, err, sizeof(err)) &&
		   !strcmp(co.token_file, "/tmp/t") &&
		   !hq_client_args(1, c1 + 2, &co, err, sizeof(err)) &&
		   !co.token_file &&
		   hq_client_args(2, c2, &co, err, sizeof(err)) &&
		   strstr(err, "--token-file") &&
		   !hq_server_args(9, s1, &so, err, sizeof(err)) && so.retry &&
		   !hq_server_args(8, s1, &so, err, sizeof(err)) && !so.retry,
		   "client --token-file FILE, server --retry; off by default");
	}
	{
		char *c1[] = { "--version", "v2", "https://h/a" };
		char *c2[] = { "--version", "v1", "https://h/a" };
		char *c3[] = { "--version", "0x1a2a3a4a", "https://h/a" };
		char *c4[] = { "https://h/a", "--version" };

		ok(!hq_client_args(3, c1, &co, err, sizeof(err)) &&
		   co.version == 0x6b3343cf &&
		   !strcmp(hq_version_name(co.version), "v2") &&
		   !hq_client_args(3, c2, &co, err, sizeof(err)) &&
		   co.version == 1 &&
		   !hq_client_args(1, c1 + 2, &co, err, sizeof(err)) &&
		   !co.version &&
		   hq_client_args(3, c3, &co, err, sizeof(err)) &&
		   strstr(err, "--version") &&
		   hq_client_args(2, c4, &co, err, sizeof(err)),
		   "client --version v1 or v2, none by default; others refused");
	}
	{
		char *c1[] = { "--idle-timeout", "120", "https://h/a" };
		char *c2[] = { "--idle-timeout", "0", "https://h/a" };
		char *c3[] = { "--idle-timeout", "4295", "https://h/a" };
		char *c4[] = { "--idle-timeout", "-5", "https://h/a" };
		char *c5[] = { "https://h/a", "--idle-timeout" };
		char *s1[] = { "--listen", "[::1]:4433", "--cert", "c", "--key", "k",
			       "--root", "/srv", "--idle-timeout", "4294" };
		char *s2[] = { "--listen", "[::1]:4433", "--cert", "c", "--key", "k",
			       "--root", "/srv", "--idle-timeout", "10s" };

		ok(!hq_client_args(3, c1, &co, err, sizeof(err)) &&
		   co.idle_timeout == 120 &&
		   !hq_client_args(1, c1 + 2, &co, err, sizeof(err)) &&
		   !co.idle_timeout &&
		   hq_client_args(3, c2, &co, err, sizeof(err)) &&
		   strstr(err, "--idle-timeout") &&
		   hq_client_args(3, c3, &co, err, sizeof(err)) &&
		   hq_client_args(3, c4, &co, err, sizeof(err)) &&
		   hq_client_args(2, c5, &co, err, sizeof(err)) &&
		   !hq_server_args(10, s1, &so, err, sizeof(err)) &&
		   so.idle_timeout == 4294 &&
		   !hq_server_args(8, s1, &so, err, sizeof(err)) &&
		   !so.idle_timeout &&
		   hq_server_args(10, s2, &so, err, sizeof(err)) &&
		   strstr(err, "--idle-timeout"),
		   "--idle-timeout SECS: 1 to 4294, none by default; others refused");
	}
	{
		struct hq_ku k;
		unsigned char ev[2] = { QUIC_EVENT_KEY_UPDATE, 1 };
		unsigned char other[2] = { QUIC_EVENT_STREAM_UPDATE, 1 };
		int good;

		hq_ku_init(&k, 1000);
		good = !hq_ku_due(&k, 999) && hq_ku_due(&k, 1000);
		hq_ku_result(&k, 1000, -EAGAIN);	/* not yet */
		good = good && hq_ku_due(&k, 1500) && !k.initiated;
		hq_ku_result(&k, 3500, 0);	/* taken late: next at 4000 */
		good = good && k.initiated == 1 && !hq_ku_due(&k, 3999) &&
		       hq_ku_due(&k, 4000);
		hq_ku_result(&k, 4000, 0);
		good = good && k.initiated == 2 && !hq_ku_due(&k, 4999);
		hq_ku_result(&k, 5000, -ENOPROTOOPT);
		good = good && k.err == ENOPROTOOPT && !hq_ku_due(&k, 9000) &&
		       k.initiated == 2;
		ok(good, "key update schedule: every BYTES, EAGAIN asks again, "
		   "a late one moves the next, an error stops it");
		hq_ku_init(&k, 0);
		ok(!hq_ku_due(&k, 1ULL << 40) && k.phase == -1 &&
		   hq_ku_event(&k, ev, 2) && k.events == 1 && k.phase == 1 &&
		   !hq_ku_event(&k, other, 2) && !hq_ku_event(&k, ev, 1) &&
		   k.events == 1,
		   "key update events counted, others and short ones not; "
		   "no --key-update, never due");
	}
	{
		char *c1[] = { "--session-file", "/tmp/s", "--0rtt", "https://h/a" };
		char *c2[] = { "--0rtt", "https://h/a" };
		char *c3[] = { "https://h/a", "--session-file" };
		char *c4[] = { "--session-file", "/tmp/s", "https://h/a" };

		ok(!hq_client_args(4, c1, &co, err, sizeof(err)) &&
		   !strcmp(co.session_file, "/tmp/s") && co.early &&
		   !hq_client_args(3, c4, &co, err, sizeof(err)) &&
		   co.session_file && !co.early,
		   "client --session-file FILE and --0rtt");
		ok(hq_client_args(2, c2, &co, err, sizeof(err)) &&
		   strstr(err, "--session-file") &&
		   hq_client_args(2, c3, &co, err, sizeof(err)),
		   "client: --0rtt without --session-file, --session-file without a file: refused");
	}
	{
		char *s1[] = { "--no-0rtt", "--listen", "[::1]:4433", "--cert", "c",
			       "--key", "k", "--root", "/srv" };

		char *s2[] = { "--ticket-key", "/tmp/k", "--listen", "[::1]:4433", "--cert",
			       "c", "--key", "k", "--root", "/srv", "--ticket-key" };

		ok(!hq_server_args(9, s1, &so, err, sizeof(err)) && so.no_early &&
		   !hq_server_args(8, s1 + 1, &so, err, sizeof(err)) && !so.no_early,
		   "server --no-0rtt");
		ok(!hq_server_args(10, s2, &so, err, sizeof(err)) &&
		   !strcmp(so.ticket_key, "/tmp/k") && !so.no_early &&
		   hq_server_args(11, s2, &so, err, sizeof(err)),
		   "server --ticket-key FILE; without a file: refused");
	}
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
