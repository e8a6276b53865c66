// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host tests of quic-hq's protocol hooks (TAP): a client and a server,
 * hq-interop and h3, driven against each other through memory instead of
 * a QUIC connection.  The client's request goes to the server's hooks,
 * the server answers from files in a temporary directory, its bytes go
 * back to the client's hooks in pieces of many sizes (QUIC may cut a
 * stream anywhere), and what the client wrote must equal the file.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../proto.h"

static int n, failed;
static char root[200], outdir[256];

static void ok(int cond, const char *name)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - proto: %s\n", cond ? "" : "not ", n, name);
}

static uint64_t rng = 0x243f6a8885a308d3ULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static int put_file(const char *name, size_t size)
{
	char path[512];
	uint8_t *buf = malloc(size ? size : 1);
	size_t i;
	int fd, ret;

	if (!buf)
		return -1;
	for (i = 0; i < size; i++)
		buf[i] = (uint8_t)rnd();
	snprintf(path, sizeof(path), "%s/%s", root, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ret = fd >= 0 && write(fd, buf, size) == (ssize_t)size ? 0 : -1;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

static int same_files(const char *a, const char *b)
{
	static char x[65536], y[65536];
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY), same = fa >= 0 && fb >= 0;

	while (same) {
		ssize_t na = read(fa, x, sizeof(x)), nb = read(fb, y, sizeof(y));

		same = na == nb && na >= 0 && !memcmp(x, y, (size_t)na);
		if (na <= 0)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* ---- one request, end to end -------------------------------------------- */

struct result {
	int reset;		/* the server reset the stream with this code */
	int client;		/* the client's last hook result */
	char why[256];
	struct hq_answer a;	/* what the server answered */
	size_t wire;		/* bytes the server sent */
};

static int sink(void *arg, const uint8_t *p, size_t len)
{
	int fd = *(int *)arg;

	return write(fd, p, len) == (ssize_t)len ? 0 : -1;
}

/* The server's answer: head, then the file's bytes (malloc). */
static uint8_t *answer_bytes(const struct hq_answer *a, size_t *len)
{
	uint8_t *buf = malloc(a->hlen + (size_t)a->size + 1);

	if (!buf)
		return NULL;
	memcpy(buf, a->head, a->hlen);
	if (a->size && pread(a->file, buf + a->hlen, (size_t)a->size, 0) != a->size) {
		free(buf);
		return NULL;
	}
	*len = a->hlen + (size_t)a->size;
	return buf;
}

/* Feeds bytes in pieces: step 0 means random sizes up to 3000. */
static size_t piece(size_t left, size_t step)
{
	size_t k = step ? step : 1 + rnd() % 3000;

	return k < left ? k : left;
}

/* Requests url from root over protocol p; the content goes to out. */
static void fetch(const struct hq_proto *p, const char *url, const char *req,
		  size_t rlen, size_t step, const char *out, struct result *r)
{
	uint8_t reqbuf[2048], *ans = NULL;
	struct hq_stream ss, cs;
	char path[HQ_PATH_MAX];
	enum hq_method m = HQ_OTHER;
	size_t off, alen = 0;
	struct hq_url u;
	int ret = 0, fd;

	memset(r, 0, sizeof(*r));
	r->a.file = -1;
	if (!req) {	/* the client's own request for url */
		ret = hq_parse_url(url, &u, r->why, sizeof(r->why));
		ret = ret ? ret : p->request(&u, reqbuf, sizeof(reqbuf));
		if (ret < 0) {
			r->client = -1000;
			return;
		}
		req = (const char *)reqbuf;
		rlen = (size_t)ret;
	}
	p->stream_init(&ss, 1);
	ret = 0;
	for (off = 0; !ret && off < rlen;) {
		size_t k = piece(rlen - off, step);

		ret = p->on_request(&ss, (const uint8_t *)req + off, k,
				    off + k == rlen, &m, path, sizeof(path));
		off += k;
	}
	if (ret > 0)
		ret = hq_serve(p, root, m, path, &r->a);
	else if (!ret)
		ret = -1;		/* never complete: a reset of -1 */
	p->stream_free(&ss);
	if (ret < 0) {
		r->reset = -ret;
		return;
	}
	ans = answer_bytes(&r->a, &alen);
	if (r->a.file >= 0)
		close(r->a.file);
	r->wire = alen;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	p->stream_init(&cs, 0);
	ret = 0;
	for (off = 0; ans && fd >= 0 && !ret && off < alen;) {
		size_t k = piece(alen - off, step);

		ret = p->response(&cs, ans + off, k, off + k == alen, sink, &fd,
				  r->why, sizeof(r->why));
		off += k;
	}
	if (!alen && ans && fd >= 0)	/* an empty answer: just FIN */
		ret = p->response(&cs, ans, 0, 1, sink, &fd, r->why, sizeof(r->why));
	p->stream_free(&cs);
	r->client = ans && fd >= 0 ? ret : -1000;
	if (fd >= 0)
		close(fd);
	free(ans);
}

static int fetch_ok(const struct hq_proto *p, const char *name, size_t step)
{
	char url[512], out[512], file[512];
	struct result r;
	const char *base = strrchr(name, '/');

	snprintf(url, sizeof(url), "https://127.0.0.1:4433/%s", name);
	snprintf(out, sizeof(out), "%s/out", outdir);
	snprintf(file, sizeof(file), "%s/%s%s", root, name,
		 base && !base[1] ? "index.html" : "");
	fetch(p, url, NULL, 0, step, out, &r);
	if (r.client != 1 || !same_files(out, file)) {
		printf("# %s %s step %zu: reset %d client %d (%s)\n", p->alpn,
		       name, step, r.reset, r.client, r.why);
		return 0;
	}
	return 1;
}

/* ---- tests ------------------------------------------------------------- */

static void test_files(const struct hq_proto *p)
{
	static const size_t steps[] = { 0, 0, 1, 2, 3, 7, 100, 1400, 65536 };
	char name[128];
	size_t i;
	int good = 1;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		good &= fetch_ok(p, "small.txt", steps[i]) &&
			fetch_ok(p, "empty", steps[i]) &&
			fetch_ok(p, "dir/", steps[i]);
	snprintf(name, sizeof(name), "%s: small, empty and index.html files, "
		 "answers cut in pieces of 1 to 65536 and random sizes", p->alpn);
	ok(good, name);

	good = fetch_ok(p, "big.bin", 0) && fetch_ok(p, "big.bin", 65536) &&
	       fetch_ok(p, "dir/odd.bin", 0) && fetch_ok(p, "dir/odd.bin", 1);
	snprintf(name, sizeof(name), "%s: 3 MiB and odd-sized files", p->alpn);
	ok(good, name);
}

static void test_control(void)
{
	struct hq_conn cc, sc;
	uint8_t buf[64];
	char why[256];
	int k, good;

	hq_proto_h3.conn_init(&cc, 0);
	hq_proto_h3.conn_init(&sc, 1);
	k = hq_proto_h3.preface(buf, sizeof(buf));
	good = k > 0 && !hq_proto_h3.uni(&sc, 2, buf, (size_t)k, 0, why, sizeof(why)) &&
	       !hq_proto_h3.uni(&cc, 3, buf, (size_t)k, 0, why, sizeof(why)) &&
	       sc.h3.have_settings && cc.h3.have_settings &&
	       !sc.h3.peer.max_table_capacity && !cc.h3.peer.blocked_streams &&
	       cc.h3.peer.max_field_section_size == H3_FIELDS_MAX;
	/* a second control stream is an error to log, with a message */
	good &= hq_proto_h3.uni(&sc, 6, buf, (size_t)k, 0, why, sizeof(why)) ==
		-H3_STREAM_CREATION_ERROR && strstr(why, "stream 6") &&
		strstr(why, "H3_STREAM_CREATION_ERROR");
	ok(good, "h3: each side reads the other's control stream and SETTINGS");
	hq_proto_h3.conn_free(&cc);
	hq_proto_h3.conn_free(&sc);

	hq_proto_h09.conn_init(&cc, 0);
	ok(hq_proto_h09.preface(buf, sizeof(buf)) == 0 &&
	   !hq_proto_h09.uni(&cc, 3, buf, 4, 0, why, sizeof(why)),
	   "hq-interop: no control stream; stray unidirectional bytes ignored");
	hq_proto_h09.conn_free(&cc);
}

static void test_requests(void)
{
	struct hq_url u;
	uint8_t buf[512];
	char err[128];
	int k;

	hq_parse_url("https://example.org/a/b.bin", &u, err, sizeof(err));
	k = hq_proto_h09.request(&u, buf, sizeof(buf));
	ok(k == 14 && !memcmp(buf, "GET /a/b.bin\r\n", 14) &&
	   hq_proto_h09.request(&u, buf, 14) < 0,
	   "hq-interop request line, unchanged");

	/* :authority: 443 left out, IPv6 in brackets, other ports kept */
	k = hq_proto_h3.request(&u, buf, sizeof(buf));
	ok(k > 0 && memmem(buf, (size_t)k, "\x50\x0b" "example.org", 13) &&
	   memmem(buf, (size_t)k, "\x51\x08/a/b.bin", 10),
	   "h3 request: :authority without :443, :path");
	hq_parse_url("https://[::1]:4433/x", &u, err, sizeof(err));
	k = hq_proto_h3.request(&u, buf, sizeof(buf));
	ok(k > 0 && memmem(buf, (size_t)k, "\x50\x0a[::1]:4433", 12),
	   "h3 request: IPv6 :authority in brackets with the port");
}

static void test_errors(void)
{
	char out[512];
	struct result r;
	uint8_t req[512];
	int k, good;

	snprintf(out, sizeof(out), "%s/out", outdir);
	fetch(&hq_proto_h09, "https://h/missing", NULL, 0, 0, out, &r);
	good = r.reset == HQ_ERR_NOTFOUND;
	fetch(&hq_proto_h09, "https://h/x", "POST /x\r\n", 9, 0, out, &r);
	good &= r.reset == HQ_ERR_NOTFOUND;
	fetch(&hq_proto_h09, "https://h/x", "GET /small.txt", 14, 3, out, &r);
	ok(good && r.client == 1, "hq-interop: missing file and bad request reset "
	   "the stream; a request line ended by FIN");

	fetch(&hq_proto_h3, "https://h/missing", NULL, 0, 0, out, &r);
	ok(!r.reset && r.a.status == 404 && r.client == -H3_ERR_STATUS &&
	   !strcmp(r.why, "HTTP status 404"),
	   "h3: a missing file is a 404, which fails the client's file");

	fetch(&hq_proto_h3, "https://h/../x", NULL, 0, 0, out, &r);
	good = r.a.status == 404;
	fetch(&hq_proto_h3, "https://h/link", NULL, 0, 0, out, &r);
	ok(good && r.a.status == 404, "h3: .. and a symbolic link out of the root are 404");

	k = h3_request(req, sizeof(req), "HEAD", "h", "/small.txt");
	fetch(&hq_proto_h3, NULL, (char *)req, (size_t)k, 0, out, &r);
	/* HEAD: the length of the file, no content (so our GET client,
	 * which expects content-length bytes, calls it short)
	 */
	ok(r.a.status == 200 && r.a.file < 0 && !r.a.size &&
	   memmem(r.a.head, r.a.hlen, "\x54\x03" "100", 5) && r.wire == r.a.hlen,
	   "h3: HEAD gets status 200 and content-length, no DATA");

	k = h3_request(req, sizeof(req), "POST", "h", "/small.txt");
	fetch(&hq_proto_h3, NULL, (char *)req, (size_t)k, 0, out, &r);
	ok(r.a.status == 405 && r.client == -H3_ERR_STATUS,
	   "h3: other methods get 405");

	fetch(&hq_proto_h3, NULL, "\x01\x03\x00\x00\xd1", 5, 1, out, &r);
	good = r.reset == H3_MESSAGE_ERROR;
	fetch(&hq_proto_h3, NULL, "\x01\x05\x00\x00\xd1", 5, 1, out, &r);
	good &= r.reset == H3_REQUEST_INCOMPLETE;
	fetch(&hq_proto_h3, NULL, "\x00\x01x", 3, 1, out, &r);
	ok(good && r.reset == H3_FRAME_UNEXPECTED,
	   "h3: malformed, incomplete and DATA-first requests reset the stream "
	   "with their HTTP/3 error code");
}

/* Many streams at once, their pieces interleaved: no state is shared. */
static void test_interleaved(void)
{
	enum { N = 12 };
	struct hq_stream ss[N], cs[N];
	struct hq_answer a[N];
	uint8_t *ans[N], req[N][512];
	size_t rlen[N], roff[N] = { 0 }, alen[N], aoff[N] = { 0 };
	int fds[N], done[N] = { 0 }, served[N] = { 0 }, i, left = N, good = 1;
	char path[HQ_PATH_MAX], out[512], file[512];
	const struct hq_proto *p = &hq_proto_h3;
	enum hq_method m;

	for (i = 0; i < N; i++) {
		struct hq_url u;
		char url[128], err[64];

		snprintf(url, sizeof(url), "https://h/f%d", i);
		hq_parse_url(url, &u, err, sizeof(err));
		rlen[i] = (size_t)p->request(&u, req[i], sizeof(req[i]));
		p->stream_init(&ss[i], 1);
		p->stream_init(&cs[i], 0);
		snprintf(out, sizeof(out), "%s/f%d", outdir, i);
		fds[i] = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ans[i] = NULL;
	}
	while (left && good) {
		size_t k;
		int ret;

		i = (int)(rnd() % N);
		if (done[i])
			continue;
		if (!served[i]) {
			k = piece(rlen[i] - roff[i], 0) % 5 + 1;
			k = k < rlen[i] - roff[i] ? k : rlen[i] - roff[i];
			ret = p->on_request(&ss[i], req[i] + roff[i], k,
					    roff[i] + k == rlen[i], &m, path,
					    sizeof(path));
			roff[i] += k;
			if (ret < 0 || (!ret && roff[i] == rlen[i])) {
				good = 0;
			} else if (ret > 0) {
				good &= !hq_serve(p, root, m, path, &a[i]);
				ans[i] = answer_bytes(&a[i], &alen[i]);
				if (a[i].file >= 0)
					close(a[i].file);
				good &= ans[i] != NULL;
				served[i] = 1;
			}
			continue;
		}
		k = piece(alen[i] - aoff[i], 0);
		ret = p->response(&cs[i], ans[i] + aoff[i], k,
				  aoff[i] + k == alen[i], sink, &fds[i],
				  out, sizeof(out));
		aoff[i] += k;
		if (ret < 0 || (!ret && aoff[i] == alen[i]))
			good = 0;
		if (ret > 0) {
			done[i] = 1;
			left--;
		}
	}
	for (i = 0; i < N; i++) {
		close(fds[i]);
		free(ans[i]);
		p->stream_free(&ss[i]);
		p->stream_free(&cs[i]);
		snprintf(out, sizeof(out), "%s/f%d", outdir, i);
		snprintf(file, sizeof(file), "%s/f%d", root, i);
		good &= same_files(out, file);
	}
	ok(good, "h3: 12 streams at once, requests and answers interleaved in "
	   "random pieces");
}

int main(void)
{
	char cmd[600];
	int i, good = 1;

	snprintf(root, sizeof(root), "/tmp/quic-hq-proto-test.%d", (int)getpid());
	snprintf(outdir, sizeof(outdir), "%s.out", root);
	if (mkdir(root, 0755) || mkdir(outdir, 0755)) {
		printf("Bail out! cannot make %s: %s\n", root, strerror(errno));
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "%s/dir", root);
	mkdir(cmd, 0755);
	good &= !put_file("small.txt", 100) && !put_file("empty", 0) &&
		!put_file("dir/index.html", 5000) && !put_file("big.bin", 3 << 20) &&
		!put_file("dir/odd.bin", 65537 + 13);
	for (i = 0; i < 12; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		good &= !put_file(name, rnd() % 200000);
	}
	{	/* a file outside the root, and a link to it inside */
		char outside[300], link[300];

		snprintf(outside, sizeof(outside), "%s/outside", outdir);
		snprintf(link, sizeof(link), "%s/link", root);
		i = open(outside, O_WRONLY | O_CREAT, 0644);
		good &= i >= 0 && !close(i) && !symlink(outside, link);
	}
	if (!good) {
		printf("Bail out! cannot make the test files\n");
		return 1;
	}

	test_requests();
	test_control();
	test_files(&hq_proto_h09);
	test_files(&hq_proto_h3);
	test_errors();
	test_interleaved();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", root, outdir);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
