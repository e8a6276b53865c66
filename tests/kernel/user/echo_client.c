// SPDX-License-Identifier: GPL-2.0
/*
 * echo_client: drives a QUIC echo server (the sample kernel module's, or
 * its own --server) over libquic, for tests/kernel/run and bench.
 *
 * Client: CONNS threads, each making ROUNDS connections one after the
 * other: handshake (X.509: the CA of QUIC_CA_FILE and --host; or --psk
 * FILE), then STREAMS bidirectional streams of BYTES bytes each, written
 * with FIN and read back until the server's FIN; every byte is compared.
 * --hold SECS keeps each connection open that long before closing it.
 * -d N then sends N RFC 9221 datagrams of 100 bytes, one at a time, each
 * sent up to 3 times until its echo (compared) comes back.
 * Prints one summary line; exits 0 when every connection did what was
 * expected (--expect-fail: every handshake failed).
 *
 * -c CERT -k KEY (client): present that certificate (a gnutls session of
 * our own and quic_handshake(), as quic(7) says for client certificates).
 *
 * Server (--server): a userspace echo server with quic_server_handshake()
 * (--cert/--key or --psk), a thread per connection, for comparing rates.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/quic.h>
#include <gnutls/gnutls.h>

static const char *alpn = "echo", *host, *psk, *cert, *key;
static unsigned int conns = 1, rounds = 1, streams = 1, bytes = 1000, hold;
static unsigned int datagrams;
static int expect_fail, quiet;
static struct sockaddr_in addr;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int n_ok, n_hs_fail, n_data_fail;
static unsigned long long bytes_checked;
static int first_err;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint8_t pattern(unsigned int conn, unsigned int s, size_t i)
{
	return (uint8_t)(conn * 131 + s * 31 + i * 7 + (i >> 8));
}

/* Send every stream, then read them all back; 0 if all bytes match. */
static int exchange(int fd, unsigned int conn)
{
	size_t n = bytes, i;
	uint8_t *out = malloc(n ? n : 1), **in = calloc(streams, sizeof(*in));
	size_t *got = calloc(streams, sizeof(*got));
	int *fin = calloc(streams, sizeof(*fin)), err = 0;
	unsigned int s, done = 0;
	char buf[65536];

	if (!out || !in || !got || !fin)
		return -ENOMEM;
	for (s = 0; s < streams; s++) {
		int64_t sid = 4 * (int64_t)s;
		size_t off = 0;

		in[s] = malloc(n + 1);
		for (i = 0; i < n; i++)
			out[i] = pattern(conn, s, i);
		do {
			size_t chunk = n - off > 16384 ? 16384 : n - off;
			uint32_t flags = (off ? 0 : MSG_QUIC_STREAM_NEW) |
					 (off + chunk == n ? MSG_QUIC_STREAM_FIN : 0);
			ssize_t w = quic_sendmsg(fd, out + off, chunk, sid, flags);

			if (w < 0) {
				err = -errno;
				goto out;
			}
			off += (size_t)w;
		} while (off < n);
	}
	while (done < streams) {
		int64_t sid = -1;
		uint32_t flags = 0;
		ssize_t r = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);

		if (r < 0) {
			err = -errno;
			goto out;
		}
		if (flags & MSG_QUIC_NOTIFICATION)
			continue;
		if (r == 0 && !(flags & MSG_QUIC_STREAM_FIN)) {
			err = -ECONNRESET;
			goto out;
		}
		s = (unsigned int)(sid / 4);
		if (sid < 0 || sid % 4 || s >= streams || fin[s] ||
		    got[s] + (size_t)r > n) {
			err = -EBADMSG;
			goto out;
		}
		memcpy(in[s] + got[s], buf, (size_t)r);
		got[s] += (size_t)r;
		if (flags & MSG_QUIC_STREAM_FIN) {
			fin[s] = 1;
			done++;
		}
	}
	for (s = 0; s < streams; s++) {
		if (got[s] != n) {
			err = -EBADMSG;
			goto out;
		}
		for (i = 0; i < n; i++)
			if (in[s][i] != pattern(conn, s, i)) {
				err = -EBADMSG;
				goto out;
			}
	}
out:
	for (s = 0; s < streams; s++)
		free(in[s]);
	free(in);
	free(got);
	free(fin);
	free(out);
	return err;
}

#define DG_LEN		100
#define DG_MAX_FRAME	1200

/* Advertise max_datagram_frame_size, so that the server may echo them. */
static int allow_datagrams(int fd)
{
	struct quic_transport_param p;
	socklen_t len = sizeof(p);

	memset(&p, 0, sizeof(p));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len))
		return -errno;
	p.remote = 0;
	p.max_datagram_frame_size = DG_MAX_FRAME;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
		       sizeof(p)))
		return -errno;
	return 0;
}

/* The next datagram within @ms: its length, 0 on timeout, or -errno. */
static ssize_t recv_datagram(int fd, uint8_t *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	for (;;) {
		if (poll(&pfd, 1, ms) <= 0)
			return 0;
		msg.msg_flags = 0;
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (msg.msg_flags & MSG_QUIC_DATAGRAM)
			return n;
		/* an event or stream data: not what we wait for */
	}
}

/* Each of @datagrams datagrams echoed whole: 0, or -EBADMSG/-ETIMEDOUT. */
static int exchange_datagrams(int fd, unsigned int conn)
{
	uint8_t out[DG_LEN], in[DG_LEN + 1];
	unsigned int d, i, try;
	ssize_t n;

	for (d = 0; d < datagrams; d++) {
		for (i = 0; i < DG_LEN; i++)
			out[i] = pattern(conn, 1000 + d, i);
		for (try = 0; try < 3; try++) {
			if (send(fd, out, DG_LEN, MSG_QUIC_DATAGRAM) != DG_LEN)
				return -errno;
			n = recv_datagram(fd, in, sizeof(in), 3000);
			if (n < 0)
				return (int)n;
			if (n == DG_LEN && !memcmp(in, out, DG_LEN))
				break;
			if (n)
				return -EBADMSG;
		}
		if (try == 3)
			return -ETIMEDOUT;
	}
	return 0;
}

/* -c/-k loaded once: sent whatever CAs the server names (so that a
 * server's refusal of a certificate it does not trust can be tested)
 */
static gnutls_pcert_st my_pcert;
static gnutls_privkey_t my_key;

static int my_cert(gnutls_session_t s, const gnutls_datum_t *req_ca_dn,
		   int n_dn, const gnutls_pk_algorithm_t *algos, int n_algos,
		   gnutls_pcert_st **pcert, unsigned int *n_pcert,
		   gnutls_privkey_t *pkey)
{
	(void)s; (void)req_ca_dn; (void)n_dn; (void)algos; (void)n_algos;
	*pcert = &my_pcert;
	*n_pcert = 1;
	*pkey = my_key;
	return 0;
}

static int load_my_cert(void)
{
	gnutls_datum_t c = { NULL, 0 }, k = { NULL, 0 };
	int ret;

	ret = gnutls_load_file(cert, &c);
	if (ret >= 0)
		ret = gnutls_load_file(key, &k);
	if (ret >= 0)
		ret = gnutls_pcert_import_x509_raw(&my_pcert, &c, GNUTLS_X509_FMT_PEM, 0);
	if (ret >= 0)
		ret = gnutls_privkey_init(&my_key);
	if (ret >= 0)
		ret = gnutls_privkey_import_x509_raw(my_key, &k, GNUTLS_X509_FMT_PEM,
						     NULL, 0);
	gnutls_free(c.data);
	gnutls_free(k.data);
	if (ret < 0)
		fprintf(stderr, "echo_client: %s / %s: %s\n", cert, key,
			gnutls_strerror(ret));
	return ret < 0 ? -1 : 0;
}

/*
 * A client handshake with a client certificate: the server's chain checked
 * against QUIC_CA_FILE (or the system store), its name against -H.
 */
static int cert_handshake(int fd)
{
	gnutls_certificate_credentials_t cred = NULL;
	gnutls_session_t s = NULL;
	const char *ca = getenv("QUIC_CA_FILE");
	int err = -EINVAL;

	if (gnutls_certificate_allocate_credentials(&cred) < 0 ||
	    (ca ? gnutls_certificate_set_x509_trust_file(cred, ca, GNUTLS_X509_FMT_PEM) :
		  gnutls_certificate_set_x509_system_trust(cred)) <= 0 ||
	    gnutls_init(&s, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA) < 0 ||
	    gnutls_priority_set_direct(s, QUIC_PRIORITY, NULL) < 0 ||
	    gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred) < 0 ||
	    quic_session_set_alpn(s, alpn, strlen(alpn)))
		goto out;
	gnutls_certificate_set_retrieve_function2(cred, my_cert);
	gnutls_session_set_verify_cert(s, host, 0);
	if (host)
		gnutls_server_name_set(s, GNUTLS_NAME_DNS, host, strlen(host));
	gnutls_transport_set_int(s, fd);
	err = quic_handshake(s);
out:
	if (s)
		gnutls_deinit(s);
	if (cred)
		gnutls_certificate_free_credentials(cred);
	return err;
}

static void count(int hs_err, int data_err)
{
	pthread_mutex_lock(&lock);
	if (hs_err)
		n_hs_fail++;
	else if (data_err)
		n_data_fail++;
	else {
		n_ok++;
		bytes_checked += (unsigned long long)streams * bytes;
	}
	if (!first_err)
		first_err = hs_err ? hs_err : data_err;
	pthread_mutex_unlock(&lock);
}

static void *client_thread(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg, r;

	for (r = 0; r < rounds; r++) {
		int fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_QUIC), err = 0;
		struct timeval tv = { 20, 0 };

		if (fd < 0) {
			count(-errno, 0);
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (datagrams)
			err = allow_datagrams(fd);
		if (!err && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
			err = -errno;
		if (!err)
			err = cert && key ? cert_handshake(fd) :
			      quic_client_handshake(fd, psk, host, alpn);
		if (err) {
			if (!quiet && !expect_fail)
				fprintf(stderr, "# conn %u: handshake: %s\n", id,
					strerror(-err));
			count(err, 0);
			close(fd);
			continue;
		}
		err = streams ? exchange(fd, id * rounds + r) : 0;
		if (err && !quiet)
			fprintf(stderr, "# conn %u: streams: %s\n", id, strerror(-err));
		if (!err && datagrams) {
			err = exchange_datagrams(fd, id * rounds + r);
			if (err && !quiet)
				fprintf(stderr, "# conn %u: datagrams: %s\n", id,
					strerror(-err));
		}
		count(0, err);
		if (hold)
			sleep(hold);
		close(fd);
	}
	return NULL;
}

/* ---- the userspace echo server ---- */

static void *server_conn(void *arg)
{
	int fd = (int)(intptr_t)arg, err;
	char buf[65536];

	err = psk ? quic_server_handshake(fd, psk, NULL, alpn) :
		    quic_server_handshake(fd, key, cert, alpn);
	while (!err) {
		int64_t sid = -1;
		uint32_t flags = 0;
		ssize_t r = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);

		if (r <= 0 && !(flags & MSG_QUIC_STREAM_FIN))
			break;
		if (flags & MSG_QUIC_NOTIFICATION || sid < 0)
			continue;
		if (quic_sendmsg(fd, buf, (size_t)r, sid,
				 flags & MSG_QUIC_STREAM_FIN) < 0)
			break;
	}
	close(fd);
	return NULL;
}

static int server(void)
{
	int lfd = socket(AF_INET, SOCK_DGRAM, IPPROTO_QUIC);

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn, strlen(alpn)) ||
	    listen(lfd, 128)) {
		perror("echo_client --server");
		return 1;
	}
	for (;;) {
		pthread_t t;
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		if (pthread_create(&t, NULL, server_conn, (void *)(intptr_t)fd)) {
			close(fd);
			continue;
		}
		pthread_detach(t);
	}
}

static const char usage[] =
"usage: echo_client [options] ADDR PORT\n"
"  -a ALPN       (default echo)    -H HOST   server name to verify\n"
"  -p PSKFILE    PSK mode          -n CONNS  parallel connections (1)\n"
"  -r ROUNDS     connections per thread (1)\n"
"  -s STREAMS    streams per connection (1)  -b BYTES per stream (1000)\n"
"  -w SECS       hold each connection open SECS before closing\n"
"  -d N          then N datagrams of 100 bytes, each echoed\n"
"  -f            expect every handshake to fail   -q  quiet\n"
"  -c CERT -k KEY  client: present this certificate\n"
"  -S            be the server: -c CERT -k KEY, or -p PSKFILE\n";

int main(int argc, char **argv)
{
	pthread_t *t;
	double t0, dt;
	unsigned int i, total;
	int c, srv = 0;

	while ((c = getopt(argc, argv, "a:H:p:n:r:s:b:w:d:fqSc:k:")) != -1) {
		switch (c) {
		case 'a': alpn = optarg; break;
		case 'H': host = optarg; break;
		case 'p': psk = optarg; break;
		case 'n': conns = (unsigned int)atoi(optarg); break;
		case 'r': rounds = (unsigned int)atoi(optarg); break;
		case 's': streams = (unsigned int)atoi(optarg); break;
		case 'b': bytes = (unsigned int)atoi(optarg); break;
		case 'w': hold = (unsigned int)atoi(optarg); break;
		case 'd': datagrams = (unsigned int)atoi(optarg); break;
		case 'f': expect_fail = 1; break;
		case 'q': quiet = 1; break;
		case 'S': srv = 1; break;
		case 'c': cert = optarg; break;
		case 'k': key = optarg; break;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (argc - optind != 2 || !conns || !rounds) {
		fputs(usage, stderr);
		return 2;
	}
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)atoi(argv[optind + 1]));
	if (inet_pton(AF_INET, argv[optind], &addr.sin_addr) != 1) {
		fputs(usage, stderr);
		return 2;
	}
	if (srv)
		return server();
	if (cert && key && load_my_cert())
		return 1;
	t = calloc(conns, sizeof(*t));
	t0 = now_s();
	for (i = 0; i < conns; i++)
		pthread_create(&t[i], NULL, client_thread, (void *)(uintptr_t)i);
	for (i = 0; i < conns; i++)
		pthread_join(t[i], NULL);
	dt = now_s() - t0;
	total = conns * rounds;
	printf("# echo_client: %u connections: %u ok, %u handshakes failed%s%s, %u data failed; "
	       "%llu bytes checked; %.2f s, %.1f connections/s\n",
	       total, n_ok, n_hs_fail, first_err ? " first error " : "",
	       first_err ? strerror(-first_err) : "", n_data_fail, bytes_checked, dt,
	       total / dt);
	if (expect_fail)
		return n_hs_fail == total ? 0 : 1;
	return n_ok == total ? 0 : 1;
}
