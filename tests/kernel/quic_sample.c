// SPDX-License-Identifier: GPL-2.0
/*
 * quic_sample: a sample kernel consumer of QUIC (<linux/quic.h>).
 *
 * - port=N: an echo server on [::]:N.  Each accepted connection gets its
 *   TLS handshake through the net/handshake upcall (a handshake agent such
 *   as quic-handshaked runs it in userspace), then every stream is echoed
 *   on the same stream id (FIN included) and every DATAGRAM as a DATAGRAM,
 *   until the client closes.
 * - client=ADDR:PORT/PATH: at load, fetch /PATH from a userspace quic-hq
 *   server (HTTP/0.9, ALPN hq-interop) through the upcall, and check its
 *   length and SHA-256.  client=ADDR:PORT (no path): talk to an echo
 *   server (this module's) on client_streams streams and one datagram.
 * - selftest=1: at load, check the in-kernel API that needs no agent
 *   (quic_do_setsockopt/getsockopt with kernel buffers, the upcall's
 *   refusal or timeout).
 *
 * Results: /proc/quic_sample (key: value lines) and one kernel log line
 * per event.  tests/kernel/README says more.
 *
 * Every blocking call is bounded: sockets get 200 ms receive and send
 * timeouts once their handshake is done, and the upcall is waited for in
 * 200 ms slices, so that unloading (qs_stopping) ends every worker
 * quickly; the workers close their own sockets.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/sha2.h>
#include <linux/completion.h>
#include <linux/file.h>
#include <linux/inet.h>
#include <linux/key.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/proc_fs.h>
#include <linux/quic.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/handshake.h>
#include <net/sock.h>

static ushort port;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "echo server port on [::] (0: no server)");
static char *alpn = "echo";
module_param(alpn, charp, 0444);
MODULE_PARM_DESC(alpn, "echo server ALPN list");
static char *auth = "x509";
module_param(auth, charp, 0444);
MODULE_PARM_DESC(auth, "echo server authentication: x509 or psk");
static uint cert;
module_param(cert, uint, 0444);
MODULE_PARM_DESC(cert, "key serial of the certificate (x509)");
static uint privkey;
module_param(privkey, uint, 0444);
MODULE_PARM_DESC(privkey, "key serial of the private key (x509)");
static uint psk;
module_param(psk, uint, 0444);
MODULE_PARM_DESC(psk, "key serial of the PSK (psk)");
static uint keyring;
module_param(keyring, uint, 0444);
MODULE_PARM_DESC(keyring, "key serial of a keyring for the agent (0: none)");
static uint cert_request;
module_param(cert_request, uint, 0444);
MODULE_PARM_DESC(cert_request, "echo server: 1 asks clients for a certificate, 2 requires one");
static uint timeout_ms = 10000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "handshake timeout in milliseconds");
static uint max_conns = 128;
module_param(max_conns, uint, 0444);
MODULE_PARM_DESC(max_conns, "most server connections at once");
static char *client = "";
module_param(client, charp, 0444);
MODULE_PARM_DESC(client, "ADDR:PORT/PATH (quic-hq) or ADDR:PORT (echo)");
static char *client_auth = "anon";
module_param(client_auth, charp, 0444);
MODULE_PARM_DESC(client_auth, "client authentication: anon, x509 or psk");
static char *client_alpn = "";
module_param(client_alpn, charp, 0444);
MODULE_PARM_DESC(client_alpn, "client ALPN (default: hq-interop, or echo)");
static char *client_peername = "";
module_param(client_peername, charp, 0444);
MODULE_PARM_DESC(client_peername, "server name to check (empty: none)");
static long client_len = -1;
module_param(client_len, long, 0444);
MODULE_PARM_DESC(client_len, "expected file length (-1: not checked)");
static char *client_sha256 = "";
module_param(client_sha256, charp, 0444);
MODULE_PARM_DESC(client_sha256, "expected file SHA-256, hex (empty: not checked)");
static uint client_streams = 3;
module_param(client_streams, uint, 0444);
MODULE_PARM_DESC(client_streams, "echo client: streams (1 to 16)");
static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "check the in-kernel API at load");

#define QS_BUF		16384
#define QS_SLICE	(HZ / 5)
#define QS_DGRAM_MAX	1200

static bool qs_stopping;
static struct workqueue_struct *qs_wq;
/* last_hs_status, last_peerid and last_peer_key_len below */
static DEFINE_SPINLOCK(qs_lock);

static struct {
	atomic_long_t accepted, hs_ok, hs_failed, streams, bytes, dgrams;
	atomic_long_t closed, refused;
	atomic_t active;
	int last_hs_status;
	key_serial_t last_peerid;	/* of the last server handshake */
	unsigned int last_peer_key_len;	/* its key's payload, seen in ta_done */
	/* client */
	const char *client_state;
	int client_hs_status, client_status;
	key_serial_t client_peerid;
	long client_bytes;
	u8 client_digest[SHA256_DIGEST_SIZE];
	/* selftest */
	int st_pass, st_fail;
} qs_stats = { .client_state = "none" };

/* The handshake upcall */

struct qs_hs {
	struct completion done;
	int status;
	key_serial_t peerid;		/* TLS_NO_PEERID: none */
	unsigned int peer_key_len;
};

/*
 * @peerid: the key the agent made of the peer's certificate (X.509), or
 * the PSK key used; TLS_NO_PEERID if the peer was not authenticated.  The
 * key exists now (a kernel user that keeps it takes a reference here with
 * key_lookup(), or names a ta_keyring); the sample looks at its size.
 */
static void qs_hs_done(void *data, int status, key_serial_t peerid)
{
	struct qs_hs *hs = data;
	struct key *key;

	hs->status = status;
	hs->peerid = peerid;
	if (!status && peerid != TLS_NO_PEERID) {
		key = key_lookup(peerid);
		if (!IS_ERR(key)) {
			hs->peer_key_len = key->datalen;
			key_put(key);
		}
	}
	complete(&hs->done);
}

/* The request of @mode: "x509", "psk" or "anon" (a client without certificate). */
static int qs_hello(struct tls_handshake_args *args, bool server,
		    const char *mode)
{
	if (!strcmp(mode, "psk")) {
		args->ta_my_peerids[0] = psk;
		args->ta_num_peerids = 1;
		return server ? tls_server_hello_psk(args, GFP_KERNEL) :
				tls_client_hello_psk(args, GFP_KERNEL);
	}
	if (!strcmp(mode, "x509")) {
		args->ta_my_cert = cert;
		args->ta_my_privkey = privkey;
		return server ? tls_server_hello_x509(args, GFP_KERNEL) :
				tls_client_hello_x509(args, GFP_KERNEL);
	}
	return tls_client_hello_anon(args, GFP_KERNEL);
}

/*
 * Hand @sock (a connected or accepted QUIC socket with a file, its ALPN
 * set) to the handshake agent and wait for ta_done, at most timeout_ms
 * plus a second (the agent's own bound comes first).
 */
static int qs_handshake(struct socket *sock, bool server, const char *mode,
			const char *peername, struct qs_hs *hs)
{
	unsigned long deadline;
	struct tls_handshake_args args = {
		.ta_sock = sock,
		.ta_done = qs_hs_done,
		.ta_timeout_ms = timeout_ms,
		.ta_keyring = keyring,
		.ta_peername = peername && *peername ? peername : NULL,
	};
	int err;

	memset(hs, 0, sizeof(*hs));
	hs->status = -EINPROGRESS;
	init_completion(&hs->done);
	args.ta_data = hs;
	deadline = jiffies + msecs_to_jiffies(timeout_ms + 1000);
	for (;;) {
		err = qs_hello(&args, server, mode);
		/*
		 * net/handshake keeps few requests waiting for the agent
		 * (hn_pending_max: about 2 per GB of memory, 3 to 50): -EAGAIN is to be
		 * tried again.
		 */
		if (err != -EAGAIN || READ_ONCE(qs_stopping) ||
		    time_after(jiffies, deadline))
			break;
		schedule_timeout_uninterruptible(msecs_to_jiffies(20));
	}
	if (err)
		return err;	/* no ta_done will come: -ESRCH is no agent */

	while (!wait_for_completion_timeout(&hs->done, QS_SLICE)) {
		if (!READ_ONCE(qs_stopping) && time_before(jiffies, deadline))
			continue;
		if (tls_handshake_cancel(sock->sk))
			return READ_ONCE(qs_stopping) ? -ESHUTDOWN : -ETIMEDOUT;
		/* ta_done won the race: it is being called. */
		wait_for_completion(&hs->done);
		break;
	}
	return hs->status;
}

static int qs_set_alpn(struct socket *sock, const char *list)
{
	return quic_do_setsockopt(sock->sk, QUIC_SOCKOPT_ALPN,
				  KERNEL_SOCKPTR((void *)list), strlen(list));
}

/* A server that asks for client certificates (cert_request 1 or 2). */
static int qs_set_cert_request(struct socket *sock)
{
	struct quic_config cfg = { .certificate_request = cert_request };

	if (!cert_request)
		return 0;
	/* zero fields keep their values */
	return quic_do_setsockopt(sock->sk, QUIC_SOCKOPT_CONFIG,
				  KERNEL_SOCKPTR(&cfg), sizeof(cfg));
}

/* Advertise max_datagram_frame_size, so that the peer may send DATAGRAMs. */
static int qs_allow_datagrams(struct socket *sock)
{
	struct quic_transport_param p = {
		.max_datagram_frame_size = QS_DGRAM_MAX,
	};

	return quic_do_setsockopt(sock->sk, QUIC_SOCKOPT_TRANSPORT_PARAM,
				  KERNEL_SOCKPTR(&p), sizeof(p));
}

/* Bounded waits from here on, so that unloading is never held up. */
static void qs_set_timeouts(struct socket *sock)
{
	WRITE_ONCE(sock->sk->sk_rcvtimeo, QS_SLICE);
	WRITE_ONCE(sock->sk->sk_sndtimeo, QS_SLICE);
}

/* Data: send and receive with the QUIC_STREAM_INFO cmsg */

/* A QUIC_STREAM_INFO cmsg: its data is at CMSG_DATA() (qs_send() checks). */
struct qs_cmsg {
	struct cmsghdr hdr;
	struct quic_stream_info si;
};

/*
 * Send @len bytes on stream @sid (or a DATAGRAM with @sid < 0), then a
 * FIN alone if @fin.  Returns 0 or -errno.
 */
static int qs_send(struct socket *sock, s64 sid, const void *data,
		   size_t len, bool fin)
{
	struct quic_stream_info si = { .stream_id = sid };
	size_t off = 0;
	struct qs_cmsg cm;
	int n;

	BUILD_BUG_ON(offsetof(struct qs_cmsg, si) != CMSG_ALIGN(sizeof(cm.hdr)) ||
		     sizeof(cm) != CMSG_SPACE(sizeof(si)));
	cm.hdr.cmsg_level = SOL_QUIC;
	cm.hdr.cmsg_type = QUIC_STREAM_INFO;
	cm.hdr.cmsg_len = CMSG_LEN(sizeof(si));
	for (;;) {
		struct kvec iov = {
			.iov_base = (void *)data + off,
			.iov_len = len - off,
		};
		struct msghdr msg = {};

		if (sid < 0) {
			msg.msg_flags = MSG_QUIC_DATAGRAM;
		} else {
			si.stream_flags = off == len && fin ?
					  MSG_QUIC_STREAM_FIN : 0;
			cm.si = si;
			msg.msg_control = &cm;
			msg.msg_controllen = sizeof(cm);
		}
		n = kernel_sendmsg(sock, &msg, &iov, 1, iov.iov_len);
		if (n == -EAGAIN && !READ_ONCE(qs_stopping))
			continue;
		if (n < 0)
			return n;
		off += n;
		if (sid < 0 || (off == len && (!fin || si.stream_flags)))
			return 0;
	}
}

/* One received message: stream data (*sid >= 0), a DATAGRAM or an event. */
struct qs_rcv {
	s64 sid;
	bool fin, datagram, event, eof;
};

static int qs_recv(struct socket *sock, void *buf, size_t size,
		   struct qs_rcv *r)
{
	struct kvec iov = { .iov_base = buf, .iov_len = size };
	struct qs_cmsg cm = {};
	struct msghdr msg = {
		.msg_control = &cm,
		.msg_controllen = sizeof(cm),
	};
	int n;

	do {
		n = kernel_recvmsg(sock, &msg, &iov, 1, size, 0);
	} while (n == -EAGAIN && !READ_ONCE(qs_stopping));
	if (n < 0)
		return n;
	memset(r, 0, sizeof(*r));
	r->sid = -1;
	r->datagram = msg.msg_flags & MSG_QUIC_DATAGRAM;
	r->event = msg.msg_flags & MSG_QUIC_NOTIFICATION;
	if (msg.msg_controllen < sizeof(cm) && cm.hdr.cmsg_level == SOL_QUIC &&
	    cm.hdr.cmsg_type == QUIC_STREAM_INFO &&
	    cm.hdr.cmsg_len == CMSG_LEN(sizeof(struct quic_stream_info))) {
		r->sid = cm.si.stream_id;
		r->fin = cm.si.stream_flags & MSG_QUIC_STREAM_FIN;
	}
	r->eof = !n && r->sid < 0 && !r->datagram && !r->event;
	return n;
}

static void qs_close(struct socket *sock)
{
	fput(sock->file);	/* the socket was given a file for the upcall */
}

/* Server */

struct qs_conn {
	struct work_struct work;
	struct socket *sock;
};

static void qs_echo(struct socket *sock, long *streams, long *bytes,
		    long *dgrams)
{
	struct qs_rcv r;
	void *buf;
	int n;

	buf = kmalloc(QS_BUF, GFP_KERNEL);
	if (!buf)
		return;
	for (;;) {
		n = qs_recv(sock, buf, QS_BUF, &r);
		if (n < 0 || r.eof)
			break;
		if (r.event)
			continue;
		if (r.datagram) {
			if (!qs_send(sock, -1, buf, n, false))
				(*dgrams)++;
			continue;
		}
		if (r.sid < 0)
			continue;
		if (qs_send(sock, r.sid, buf, n, r.fin))
			break;
		*bytes += n;
		*streams += r.fin;
	}
	kfree(buf);
}

static void qs_conn_work(struct work_struct *work)
{
	struct qs_conn *c = container_of(work, struct qs_conn, work);
	long streams = 0, bytes = 0, dgrams = 0;
	struct sockaddr_storage peer = {};
	struct socket *sock = c->sock;
	struct qs_hs hs;
	int err;

	kernel_getpeername(sock, (struct sockaddr *)&peer);
	err = qs_set_alpn(sock, alpn);
	if (!err)
		err = qs_set_cert_request(sock);
	if (!err)
		err = qs_handshake(sock, true, auth, NULL, &hs);
	/* the last handshake's status and peer, read together */
	spin_lock(&qs_lock);
	qs_stats.last_hs_status = err;
	qs_stats.last_peerid = err ? TLS_NO_PEERID : hs.peerid;
	qs_stats.last_peer_key_len = err ? 0 : hs.peer_key_len;
	spin_unlock(&qs_lock);
	if (err) {
		atomic_long_inc(&qs_stats.hs_failed);
		pr_info("server handshake failed: %d (peer %pISpc)\n", err,
			&peer);
		goto out;
	}
	atomic_long_inc(&qs_stats.hs_ok);
	pr_info("server handshake ok (peer %pISpc, peerid %d, key %u bytes)\n",
		&peer, hs.peerid, hs.peer_key_len);
	qs_set_timeouts(sock);
	qs_echo(sock, &streams, &bytes, &dgrams);
	atomic_long_add(streams, &qs_stats.streams);
	atomic_long_add(bytes, &qs_stats.bytes);
	atomic_long_add(dgrams, &qs_stats.dgrams);
	atomic_long_inc(&qs_stats.closed);
	pr_info("server connection closed: streams %ld bytes %ld datagrams %ld\n",
		streams, bytes, dgrams);
out:
	qs_close(sock);
	atomic_dec(&qs_stats.active);
	kfree(c);
}

static struct socket *qs_lsock;

static void qs_conn_start(struct socket *nsock)
{
	struct qs_conn *c;
	struct file *file;

	file = sock_alloc_file(nsock, 0, NULL);	/* releases nsock on error */
	if (IS_ERR(file))
		return;
	atomic_long_inc(&qs_stats.accepted);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c || atomic_inc_return(&qs_stats.active) > max_conns) {
		if (c)
			atomic_dec(&qs_stats.active);
		atomic_long_inc(&qs_stats.refused);
		kfree(c);
		fput(file);
		return;
	}
	c->sock = nsock;
	INIT_WORK(&c->work, qs_conn_work);
	queue_work(qs_wq, &c->work);
}

static void qs_listen_work(struct work_struct *work)
{
	struct socket *nsock;
	int err;

	while (!READ_ONCE(qs_stopping)) {
		err = kernel_accept(qs_lsock, &nsock, 0);
		if (err == -EAGAIN)
			continue;	/* the 200 ms receive timeout */
		if (err) {
			pr_info("accept: %d\n", err);
			schedule_timeout_interruptible(QS_SLICE);
			continue;
		}
		qs_conn_start(nsock);
	}
	sock_release(qs_lsock);
}

static DECLARE_WORK(qs_listen, qs_listen_work);

static int qs_server_start(void)
{
	struct sockaddr_in6 a = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	struct socket *sock;
	int err;

	if (strcmp(auth, "x509") && strcmp(auth, "psk"))
		return -EINVAL;
	err = sock_create_kern(&init_net, AF_INET6, SOCK_DGRAM, IPPROTO_QUIC,
			       &sock);
	if (err)
		return err;
	/*
	 * SO_REUSEPORT: a server loaded again joins the port that its closed
	 * connections still hold for their closing period.
	 */
	sock_set_reuseport(sock->sk);
	err = qs_allow_datagrams(sock);	/* accepted sockets inherit it */
	if (!err)
		err = kernel_bind(sock, (struct sockaddr *)&a, sizeof(a));
	if (!err)
		err = kernel_listen(sock, 128);
	if (err) {
		sock_release(sock);
		return err;
	}
	WRITE_ONCE(sock->sk->sk_rcvtimeo, QS_SLICE);
	qs_lsock = sock;
	queue_work(qs_wq, &qs_listen);
	pr_info("server listening on port %u (%s)\n", port, auth);
	return 0;
}

/* Client */

static int qs_parse_addr(const char *s, struct sockaddr_storage *ss,
			 const char **path)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	const char *end, *p;
	u16 pt;
	char num[6];

	memset(ss, 0, sizeof(*ss));
	if (*s == '[') {
		if (!in6_pton(s + 1, -1, (u8 *)&a6->sin6_addr, ']', &end) ||
		    end[1] != ':')
			return -EINVAL;
		a6->sin6_family = AF_INET6;
		p = end + 2;
	} else {
		if (!in4_pton(s, -1, (u8 *)&a4->sin_addr.s_addr, ':', &end))
			return -EINVAL;
		a4->sin_family = AF_INET;
		p = end + 1;
	}
	end = strchrnul(p, '/');
	if (end - p < 1 || end - p >= sizeof(num))
		return -EINVAL;
	memcpy(num, p, end - p);
	num[end - p] = 0;
	if (kstrtou16(num, 10, &pt) || !pt)
		return -EINVAL;
	if (ss->ss_family == AF_INET6)
		a6->sin6_port = htons(pt);
	else
		a4->sin_port = htons(pt);
	*path = *end ? end : NULL;
	return 0;
}

/* A new bidirectional stream, through QUIC_SOCKOPT_STREAM_OPEN. */
static int qs_stream_open(struct socket *sock, s64 *sid)
{
	struct quic_stream_info si = { .stream_id = -1 };
	int len = sizeof(si), err;

	err = quic_do_getsockopt(sock->sk, QUIC_SOCKOPT_STREAM_OPEN,
				 KERNEL_SOCKPTR(&si), KERNEL_SOCKPTR(&len));
	if (!err)
		*sid = si.stream_id;
	return err;
}

/* GET @path from a quic-hq server: length and SHA-256 of the answer. */
static int qs_client_get(struct socket *sock, const char *path)
{
	struct sha256_state sha;
	char req[256];
	struct qs_rcv r;
	void *buf;
	s64 sid;
	int n, err;

	n = snprintf(req, sizeof(req), "GET %s\r\n", path);
	if (n >= sizeof(req))
		return -ENAMETOOLONG;
	err = qs_stream_open(sock, &sid);
	if (!err)
		err = qs_send(sock, sid, req, n, true);
	if (err)
		return err;
	buf = kmalloc(QS_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	sha256_init(&sha);
	for (;;) {
		n = qs_recv(sock, buf, QS_BUF, &r);
		if (n < 0 || r.eof) {
			err = n < 0 ? n : -ECONNRESET;
			break;
		}
		if (r.sid != sid)
			continue;
		sha256_update(&sha, buf, n);
		qs_stats.client_bytes += n;
		if (r.fin)
			break;
	}
	sha256_final(&sha, qs_stats.client_digest);
	kfree(buf);
	return err;
}

static u8 qs_pattern(unsigned int stream, size_t off)
{
	return (u8)(off * 7 + stream);
}

/*
 * Against an echo server: client_streams streams of 1000 * (i + 1) bytes
 * each, sent whole with FIN, then every echo checked byte by byte; and a
 * DATAGRAM, echoed (best effort: counted, not required).
 */
static int qs_client_echo(struct socket *sock)
{
	size_t got[16] = {}, want[16];
	unsigned int i, done = 0, k;
	static const char dg[] = "quic_sample datagram";
	struct qs_rcv r;
	s64 sid[16];
	u8 *buf;
	int n, err = 0;

	if (!client_streams || client_streams > ARRAY_SIZE(sid))
		return -EINVAL;
	buf = kmalloc(QS_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < client_streams && !err; i++) {
		want[i] = 1000 * (i + 1);
		for (k = 0; k < want[i]; k++)
			buf[k] = qs_pattern(i, k);
		err = qs_stream_open(sock, &sid[i]);
		if (!err)
			err = qs_send(sock, sid[i], buf, want[i], true);
	}
	if (!err && qs_send(sock, -1, dg, sizeof(dg), false))
		pr_info("client datagram not sent\n");
	while (!err && done < client_streams) {
		n = qs_recv(sock, buf, QS_BUF, &r);
		if (n < 0 || r.eof) {
			err = n < 0 ? n : -ECONNRESET;
			break;
		}
		if (r.datagram) {
			if (n != sizeof(dg) || memcmp(buf, dg, n))
				err = -EBADMSG;
			continue;
		}
		for (i = 0; i < client_streams && sid[i] != r.sid; i++)
			;
		if (i == client_streams)
			continue;
		for (k = 0; k < n && !err; k++)
			if (buf[k] != qs_pattern(i, got[i] + k))
				err = -EBADMSG;
		got[i] += n;
		qs_stats.client_bytes += n;
		if (got[i] > want[i] || (r.fin && got[i] != want[i]))
			err = -EBADMSG;
		done += r.fin;
	}
	kfree(buf);
	return err;
}

static int qs_client_check(void)
{
	char hex[SHA256_DIGEST_SIZE * 2 + 1];

	bin2hex(hex, qs_stats.client_digest, SHA256_DIGEST_SIZE);
	hex[sizeof(hex) - 1] = 0;
	if (client_len >= 0 && qs_stats.client_bytes != client_len)
		return -EBADMSG;
	if (*client_sha256 && strcasecmp(client_sha256, hex))
		return -EBADMSG;
	return 0;
}

static int qs_client_run(void)
{
	struct sockaddr_storage ss;
	struct socket *sock;
	const char *path, *al;
	struct file *file;
	struct qs_hs hs;
	int err;

	err = qs_parse_addr(client, &ss, &path);
	if (err)
		return err;
	al = *client_alpn ? client_alpn : path ? "hq-interop" : "echo";
	err = sock_create_kern(&init_net, ss.ss_family, SOCK_DGRAM,
			       IPPROTO_QUIC, &sock);
	if (err)
		return err;
	file = sock_alloc_file(sock, 0, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	err = qs_set_alpn(sock, al);
	if (!err && !path)
		err = qs_allow_datagrams(sock);
	if (!err)
		err = kernel_connect(sock, (struct sockaddr *)&ss, sizeof(ss), 0);
	if (!err)
		err = qs_handshake(sock, false, client_auth, client_peername, &hs);
	qs_stats.client_hs_status = err;
	if (err) {
		pr_info("client handshake failed: %d\n", err);
		goto out;
	}
	qs_stats.client_peerid = hs.peerid;
	pr_info("client handshake ok (%pISpc, %s, peerid %d)\n", &ss, al,
		hs.peerid);
	qs_set_timeouts(sock);
	err = path ? qs_client_get(sock, path) : qs_client_echo(sock);
	if (!err && path)
		err = qs_client_check();
out:
	qs_close(sock);
	return err;
}

static void qs_client_work(struct work_struct *work)
{
	int err = qs_client_run();

	qs_stats.client_status = err;
	/* The results above are visible to whoever reads "done". */
	smp_store_release(&qs_stats.client_state, "done");
	pr_info("client done: status %d bytes %ld sha256 %*phN\n", err,
		qs_stats.client_bytes, SHA256_DIGEST_SIZE,
		qs_stats.client_digest);
}

static DECLARE_WORK(qs_client, qs_client_work);

/* Selftest of the API pieces that need no handshake agent */

static void qs_check(bool ok, const char *what)
{
	if (ok)
		qs_stats.st_pass++;
	else
		qs_stats.st_fail++;
	pr_info("selftest: %s: %s\n", ok ? "ok" : "FAIL", what);
}

static void qs_selftest_opts(struct socket *sock)
{
	struct quic_transport_param tp = { .max_idle_timeout = 7000000 };
	struct quic_stream_peeloff po = { .stream_id = -1 };
	struct quic_config cfg = {};
	char got[64] = {};
	int len, err;

	err = qs_set_alpn(sock, "smbd,echo");
	len = sizeof(got);
	if (!err)
		err = quic_do_getsockopt(sock->sk, QUIC_SOCKOPT_ALPN,
					 KERNEL_SOCKPTR(got),
					 KERNEL_SOCKPTR(&len));
	qs_check(!err && len == 9 && !memcmp(got, "smbd,echo", 9),
		 "ALPN set and read back with kernel buffers");

	err = quic_do_setsockopt(sock->sk, QUIC_SOCKOPT_TRANSPORT_PARAM,
				 KERNEL_SOCKPTR(&tp), sizeof(tp));
	memset(&tp, 0, sizeof(tp));
	len = sizeof(tp);
	if (!err)
		err = quic_do_getsockopt(sock->sk, QUIC_SOCKOPT_TRANSPORT_PARAM,
					 KERNEL_SOCKPTR(&tp),
					 KERNEL_SOCKPTR(&len));
	qs_check(!err && len == sizeof(tp) && tp.max_idle_timeout == 7000000,
		 "TRANSPORT_PARAM set and read back");

	len = sizeof(cfg);
	err = quic_do_getsockopt(sock->sk, QUIC_SOCKOPT_CONFIG,
				 KERNEL_SOCKPTR(&cfg), KERNEL_SOCKPTR(&len));
	qs_check(!err && len == sizeof(cfg) && cfg.version == QUIC_VERSION_V1,
		 "CONFIG read");

	len = sizeof(cfg) - 1;
	err = quic_do_getsockopt(sock->sk, QUIC_SOCKOPT_CONFIG,
				 KERNEL_SOCKPTR(&cfg), KERNEL_SOCKPTR(&len));
	qs_check(err == -EINVAL, "short getsockopt buffer: -EINVAL");

	err = quic_do_setsockopt(sock->sk, 999, KERNEL_SOCKPTR(&cfg),
				 sizeof(cfg));
	qs_check(err == -ENOPROTOOPT, "unknown option: -ENOPROTOOPT");

	len = sizeof(po);
	err = quic_do_getsockopt(sock->sk, QUIC_SOCKOPT_STREAM_PEELOFF,
				 KERNEL_SOCKPTR(&po), KERNEL_SOCKPTR(&len));
	qs_check(err == -EOPNOTSUPP, "STREAM_PEELOFF from the kernel: -EOPNOTSUPP");
}

/*
 * The upcall with nobody answering: a connect to a port where no server
 * is, then the handshake.  With no agent, -ESRCH at once; with an agent,
 * an error (its timeout or the connection's) within the bound.
 */
static void qs_selftest_upcall(void)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(9),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	unsigned long start = jiffies;
	struct socket *sock;
	struct file *file;
	struct qs_hs hs;
	int err;

	err = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_QUIC,
			       &sock);
	if (err) {
		qs_check(false, "kernel SOCK_STREAM socket");
		return;
	}
	err = qs_handshake(sock, false, "anon", NULL, &hs);
	qs_check(err == -EINVAL, "upcall on a socket without a file: -EINVAL");
	file = sock_alloc_file(sock, 0, NULL);
	if (IS_ERR(file)) {
		qs_check(false, "sock_alloc_file");
		return;
	}
	err = qs_set_alpn(sock, "echo");
	if (!err)
		err = kernel_connect(sock, (struct sockaddr *)&a, sizeof(a), 0);
	qs_check(!err, "kernel_connect");
	if (!err)
		err = qs_handshake(sock, false, "anon", NULL, &hs);
	pr_info("selftest: upcall with no server: %d after %u ms\n", err,
		jiffies_to_msecs(jiffies - start));
	qs_check(err < 0 && time_before(jiffies,
					start + msecs_to_jiffies(timeout_ms + 5000)),
		 "upcall with no server fails within the bound");
	qs_close(sock);
}

static void qs_selftest(void)
{
	struct socket *sock;
	int err;

	err = sock_create_kern(&init_net, AF_INET6, SOCK_DGRAM, IPPROTO_QUIC,
			       &sock);
	qs_check(!err, "sock_create_kern AF_INET6 SOCK_DGRAM IPPROTO_QUIC");
	if (!err) {
		qs_selftest_opts(sock);
		sock_release(sock);
	}
	qs_selftest_upcall();
	pr_info("selftest: %d passed, %d failed\n", qs_stats.st_pass,
		qs_stats.st_fail);
}

/* /proc/quic_sample */

static int qs_proc_show(struct seq_file *m, void *v)
{
	const char *state;

	seq_printf(m, "server_port: %u\n", port);
	seq_printf(m, "accepted: %ld\n", atomic_long_read(&qs_stats.accepted));
	seq_printf(m, "refused: %ld\n", atomic_long_read(&qs_stats.refused));
	seq_printf(m, "handshakes_ok: %ld\n", atomic_long_read(&qs_stats.hs_ok));
	seq_printf(m, "handshakes_failed: %ld\n",
		   atomic_long_read(&qs_stats.hs_failed));
	spin_lock(&qs_lock);
	seq_printf(m, "last_handshake_status: %d\n", qs_stats.last_hs_status);
	seq_printf(m, "last_peerid: %d\n", qs_stats.last_peerid);
	seq_printf(m, "last_peer_key_bytes: %u\n", qs_stats.last_peer_key_len);
	spin_unlock(&qs_lock);
	seq_printf(m, "streams_echoed: %ld\n",
		   atomic_long_read(&qs_stats.streams));
	seq_printf(m, "bytes_echoed: %ld\n", atomic_long_read(&qs_stats.bytes));
	seq_printf(m, "datagrams_echoed: %ld\n",
		   atomic_long_read(&qs_stats.dgrams));
	seq_printf(m, "conns_closed: %ld\n", atomic_long_read(&qs_stats.closed));
	seq_printf(m, "conns_active: %d\n", atomic_read(&qs_stats.active));
	/* Pairs with qs_client_work(): "done" comes with the results. */
	state = smp_load_acquire(&qs_stats.client_state);
	seq_printf(m, "client_state: %s\n", state);
	if (strcmp(state, "done"))
		goto selftest;
	seq_printf(m, "client_handshake_status: %d\n",
		   qs_stats.client_hs_status);
	seq_printf(m, "client_peerid: %d\n", qs_stats.client_peerid);
	seq_printf(m, "client_status: %d\n", qs_stats.client_status);
	seq_printf(m, "client_bytes: %ld\n", qs_stats.client_bytes);
	seq_printf(m, "client_sha256: %*phN\n", SHA256_DIGEST_SIZE,
		   qs_stats.client_digest);
selftest:
	seq_printf(m, "selftest_passed: %d\n", qs_stats.st_pass);
	seq_printf(m, "selftest_failed: %d\n", qs_stats.st_fail);
	return 0;
}

static void qs_stop(void)
{
	WRITE_ONCE(qs_stopping, true);
	destroy_workqueue(qs_wq);	/* every worker closes its sockets */
	flush_delayed_fput();		/* and their last fput() is done */
}

static int __init qs_init(void)
{
	int err;

	qs_wq = alloc_workqueue("quic_sample", WQ_UNBOUND, max_conns + 2);
	if (!qs_wq)
		return -ENOMEM;
	if (selftest)
		qs_selftest();
	if (port) {
		err = qs_server_start();
		if (err) {
			pr_info("server: %d\n", err);
			qs_stop();
			return err;
		}
	}
	if (*client) {
		qs_stats.client_state = "running";
		queue_work(qs_wq, &qs_client);
	}
	if (!proc_create_single("quic_sample", 0444, NULL, qs_proc_show)) {
		qs_stop();
		return -ENOMEM;
	}
	return 0;
}

static void __exit qs_exit(void)
{
	remove_proc_entry("quic_sample", NULL);
	qs_stop();
	pr_info("unloaded: %ld connections closed\n",
		atomic_long_read(&qs_stats.closed));
}

module_init(qs_init);
module_exit(qs_exit);
MODULE_DESCRIPTION("QUIC sample kernel consumer: echo server and client");
MODULE_LICENSE("GPL");
