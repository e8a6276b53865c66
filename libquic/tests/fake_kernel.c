// SPDX-License-Identifier: LGPL-2.1-or-later
/* A fake QUIC kernel for libquic's host tests: see fake_kernel.h. */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_kernel.h"

ssize_t __real_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t __real_recvmsg(int fd, struct msghdr *msg, int flags);
int __real_setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len);
int __real_getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);

ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t __wrap_recvmsg(int fd, struct msghdr *msg, int flags);
int __wrap_setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len);
int __wrap_getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);

struct fk_chunk {
	struct fk_chunk *next;
	int handshake;
	uint8_t level;
	struct quic_stream_info sinfo;
	size_t len, off;
	uint8_t data[];
};

#define FK_MAX_SOCKS 64

static pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fk_cond = PTHREAD_COND_INITIALIZER;
static struct fk_sock *fk_socks[FK_MAX_SOCKS];

static struct fk_sock *fk_lookup(int fd)	/* fk_lock held */
{
	int i;

	for (i = 0; i < FK_MAX_SOCKS; i++)
		if (fk_socks[i] && fk_socks[i]->fd == fd)
			return fk_socks[i];
	return NULL;
}

static void fk_register(struct fk_sock *s)
{
	int i;

	for (i = 0; i < FK_MAX_SOCKS; i++) {
		if (!fk_socks[i]) {
			fk_socks[i] = s;
			return;
		}
	}
	abort();
}

int fk_pair(struct fk_sock **client, struct fk_sock **server)
{
	struct fk_sock *c, *s;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return -errno;
	c = calloc(1, sizeof(*c));
	s = calloc(1, sizeof(*s));
	if (!c || !s)
		abort();
	c->fd = sv[0];
	c->other_fd = sv[1];
	s->fd = sv[1];
	s->other_fd = sv[0];
	c->peer = s;
	s->peer = c;
	s->is_server = 1;
	/* distinct, recognisable transport parameters */
	memcpy(c->tp_local, "\x04\x04\x80\x10\x00\x00\x01\x02\x43\xe8\xc1", 11);
	c->tp_local_len = 11;
	memcpy(s->tp_local, "\x04\x04\x80\x20\x00\x00\x03\x02\x45\xc0\x0f\x00\x5e", 13);
	s->tp_local_len = 13;

	pthread_mutex_lock(&fk_lock);
	fk_register(c);
	fk_register(s);
	pthread_mutex_unlock(&fk_lock);
	*client = c;
	*server = s;
	return 0;
}

static void fk_drop(struct fk_sock *s)
{
	struct fk_chunk *c;
	int i;

	for (i = 0; i < FK_MAX_SOCKS; i++)
		if (fk_socks[i] == s)
			fk_socks[i] = NULL;
	while ((c = s->rx_head)) {
		s->rx_head = c->next;
		free(c);
	}
	close(s->fd);
	free(s);
}

void fk_pair_free(struct fk_sock *client, struct fk_sock *server)
{
	pthread_mutex_lock(&fk_lock);
	fk_drop(client);
	fk_drop(server);
	pthread_mutex_unlock(&fk_lock);
}

const struct quic_crypto_secret *fk_secret(const struct fk_sock *s,
					   uint8_t level, int send)
{
	const struct quic_crypto_secret *found = NULL;
	int i;

	for (i = 0; i < s->nsecrets; i++)
		if (s->secrets[i].level == level && s->secrets[i].send == send)
			found = &s->secrets[i];
	return found;
}

int fk_event_find(const struct fk_sock *s, enum fk_event_type type, int level,
		  int send, int last)
{
	int i, found = -1;

	for (i = 0; i < s->nevents; i++) {
		const struct fk_event *e = &s->events[i];

		if (e->type != type || (level >= 0 && e->level != level) ||
		    (send >= 0 && e->send != send))
			continue;
		found = i;
		if (!last)
			break;
	}
	return found;
}

size_t fk_pending(struct fk_sock *s)
{
	struct fk_chunk *c;
	size_t n = 0;

	pthread_mutex_lock(&fk_lock);
	for (c = s->rx_head; c; c = c->next)
		n += c->len - c->off;
	pthread_mutex_unlock(&fk_lock);
	return n;
}

static void fk_event(struct fk_sock *s, enum fk_event_type type, uint8_t level,
		     uint8_t send, size_t len)
{
	struct fk_event *e;

	if (s->nevents == FK_MAX_EVENTS)
		return;
	e = &s->events[s->nevents++];
	e->type = type;
	e->level = level;
	e->send = send;
	e->len = len;
	e->hs_recvd = s->hs_recvd[QUIC_CRYPTO_HANDSHAKE];
	e->peer_hs_sent = s->peer->hs_sent[QUIC_CRYPTO_HANDSHAKE];
}

static void fk_violation(struct fk_sock *s, const char *what)
{
	s->violations++;
	snprintf(s->violation, sizeof(s->violation), "%s", what);
}

static void fk_enqueue(struct fk_sock *to, struct fk_chunk *c)
{
	if (to->rx_tail)
		to->rx_tail->next = c;
	else
		to->rx_head = c;
	to->rx_tail = c;
}

ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct quic_handshake_info hinfo = { 0 };
	struct quic_stream_info sinfo = { 0, 0 };
	int has_h = 0, has_s = 0;
	struct cmsghdr *cmsg;
	struct fk_chunk *c;
	struct fk_sock *s;
	size_t len = 0, off = 0, i;

	pthread_mutex_lock(&fk_lock);
	s = fk_lookup(fd);
	if (!s) {
		pthread_mutex_unlock(&fk_lock);
		return __real_sendmsg(fd, msg, flags);
	}
	for (cmsg = CMSG_FIRSTHDR(msg); cmsg; cmsg = CMSG_NXTHDR((struct msghdr *)msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_QUIC)
			continue;
		if (cmsg->cmsg_type == QUIC_HANDSHAKE_INFO &&
		    cmsg->cmsg_len == CMSG_LEN(sizeof(hinfo))) {
			memcpy(&hinfo, CMSG_DATA(cmsg), sizeof(hinfo));
			has_h = 1;
		} else if (cmsg->cmsg_type == QUIC_STREAM_INFO &&
			   cmsg->cmsg_len == CMSG_LEN(sizeof(sinfo))) {
			memcpy(&sinfo, CMSG_DATA(cmsg), sizeof(sinfo));
			has_s = 1;
		}
	}
	for (i = 0; i < msg->msg_iovlen; i++)
		len += msg->msg_iov[i].iov_len;
	if (has_h == has_s || s->close_set || s->peer_closed) {
		if (has_h == has_s)
			fk_violation(s, "sendmsg without exactly one QUIC cmsg");
		pthread_mutex_unlock(&fk_lock);
		errno = has_h == has_s ? EINVAL : EPIPE;
		return -1;
	}
	if (has_h) {
		if (hinfo.crypto_level >= QUIC_CRYPTO_MAX ||
		    (hinfo.crypto_level != QUIC_CRYPTO_INITIAL &&
		     !s->tx_key[hinfo.crypto_level]) ||
		    (hinfo.crypto_level == QUIC_CRYPTO_APP && !s->established)) {
			fk_violation(s, "handshake bytes at a level without send keys");
			pthread_mutex_unlock(&fk_lock);
			errno = EINVAL;
			return -1;
		}
	}
	c = malloc(sizeof(*c) + len);
	if (!c)
		abort();
	memset(c, 0, sizeof(*c));
	for (i = 0; i < msg->msg_iovlen; i++) {
		memcpy(c->data + off, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		off += msg->msg_iov[i].iov_len;
	}
	c->len = len;
	if (has_h) {
		c->handshake = 1;
		c->level = hinfo.crypto_level;
		s->hs_sent[c->level] += len;
		fk_event(s, FK_EV_SEND, c->level, 1, len);
		if (c->level == QUIC_CRYPTO_APP && !s->peer->is_server) {
			/* a NewSessionTicket: kept for the client, or held
			 * until it has the APP receive key, as quic.ko does
			 */
			struct fk_sock *p = s->peer;
			uint8_t *buf = p->app_rx ? p->ticket : p->held;
			size_t *n = p->app_rx ? &p->ticket_len : &p->held_len;

			if (len <= sizeof(p->ticket) - *n) {
				memcpy(buf + *n, c->data, len);
				*n += len;
			}
			free(c);
			c = NULL;
		}
	} else {
		c->sinfo = sinfo;
		s->last_sinfo = sinfo;
		s->last_send_flags = flags;
	}
	if (c)
		fk_enqueue(s->peer, c);
	pthread_cond_broadcast(&fk_cond);
	pthread_mutex_unlock(&fk_lock);
	return (ssize_t)len;
}

static int fk_put_cmsg(struct msghdr *msg, int type, const void *data,
		       size_t len)
{
	struct cmsghdr *cmsg;

	if (msg->msg_controllen < CMSG_SPACE(len)) {
		msg->msg_flags |= MSG_CTRUNC;
		msg->msg_controllen = 0;
		return -1;
	}
	cmsg = CMSG_FIRSTHDR(msg);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = type;
	cmsg->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cmsg), data, len);
	msg->msg_controllen = CMSG_SPACE(len);
	return 0;
}

ssize_t __wrap_recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct fk_chunk *c;
	struct fk_sock *s;
	size_t n = 0, i;

	pthread_mutex_lock(&fk_lock);
	s = fk_lookup(fd);
	if (!s) {
		pthread_mutex_unlock(&fk_lock);
		return __real_recvmsg(fd, msg, flags);
	}
	while (!s->rx_head) {
		if (s->peer_closed) {
			pthread_mutex_unlock(&fk_lock);
			errno = ECONNRESET;
			return -1;
		}
		if (flags & MSG_DONTWAIT) {
			pthread_mutex_unlock(&fk_lock);
			errno = EAGAIN;
			return -1;
		}
		pthread_cond_wait(&fk_cond, &fk_lock);
	}
	c = s->rx_head;
	msg->msg_flags = 0;
	for (i = 0; i < msg->msg_iovlen && c->off < c->len; i++) {
		size_t k = msg->msg_iov[i].iov_len;

		if (k > c->len - c->off)
			k = c->len - c->off;
		memcpy(msg->msg_iov[i].iov_base, c->data + c->off, k);
		c->off += k;
		n += k;
	}
	if (c->handshake) {
		struct quic_handshake_info info = { .crypto_level = c->level };

		fk_put_cmsg(msg, QUIC_HANDSHAKE_INFO, &info, sizeof(info));
		s->hs_recvd[c->level] += n;
		fk_event(s, FK_EV_RECV, c->level, 0, n);
	} else {
		struct quic_stream_info info = c->sinfo;

		info.stream_flags &= MSG_QUIC_STREAM_FIN;
		if (c->off < c->len)
			info.stream_flags = 0;	/* FIN only with the last byte */
		fk_put_cmsg(msg, QUIC_STREAM_INFO, &info, sizeof(info));
	}
	if (c->off == c->len) {
		s->rx_head = c->next;
		if (!s->rx_head)
			s->rx_tail = NULL;
		free(c);
	}
	pthread_mutex_unlock(&fk_lock);
	return (ssize_t)n;
}

static int fk_err(int err)
{
	pthread_mutex_unlock(&fk_lock);
	errno = err;
	return -1;
}

int __wrap_setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len)
{
	struct fk_sock *s;

	pthread_mutex_lock(&fk_lock);
	s = fk_lookup(fd);
	if (!s || level != SOL_QUIC) {
		pthread_mutex_unlock(&fk_lock);
		return __real_setsockopt(fd, level, name, val, len);
	}
	switch (name) {
	case QUIC_SOCKOPT_CRYPTO_SECRET: {
		const struct quic_crypto_secret *sec = val;

		if (len != sizeof(*sec) || sec->level >= QUIC_CRYPTO_MAX)
			return fk_err(EINVAL);
		if (s->nsecrets == FK_MAX_SECRETS)
			return fk_err(ENOSPC);
		if (s->established)
			fk_violation(s, "secret installed after the handshake completed");
		s->secrets[s->nsecrets++] = *sec;
		fk_event(s, FK_EV_SECRET, sec->level, sec->send, 0);
		if (sec->send)
			s->tx_key[sec->level] = 1;
		if (sec->level == QUIC_CRYPTO_APP && !sec->send && !s->is_server) {
			/* the session data has served: tickets from now */
			memcpy(s->ticket, s->held, s->held_len);
			s->ticket_len = s->held_len;
			s->held_len = 0;
			s->app_rx = 1;
		}
		if (sec->level == QUIC_CRYPTO_APP && ++s->app_keys == 2)
			s->established = 1;
		break;
	}
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		if (s->fail_tp_set)
			return fk_err(s->fail_tp_set);
		if (len > sizeof(s->tp_peer))
			return fk_err(EINVAL);
		memcpy(s->tp_peer, val, len);
		s->tp_peer_len = len;
		s->tp_set_count++;
		fk_event(s, FK_EV_TP, 0, 0, len);
		break;
	case QUIC_SOCKOPT_ALPN:
		if (len >= sizeof(s->alpn_selected))
			return fk_err(EINVAL);
		memcpy(s->alpn_selected, val, len);
		s->alpn_selected[len] = 0;
		s->alpn_set_count++;
		fk_event(s, FK_EV_ALPN, 0, 0, len);
		break;
	case QUIC_SOCKOPT_CONNECTION_CLOSE:
		if (len < sizeof(s->close))
			return fk_err(EINVAL);
		memcpy(&s->close, val, sizeof(s->close));
		s->close_set = 1;
		fk_event(s, FK_EV_CLOSE, 0, 0, 0);
		s->peer->peer_closed = 1;
		s->peer->peer_close = s->close;
		pthread_cond_broadcast(&fk_cond);
		break;
	case QUIC_SOCKOPT_SESSION_TICKET:
		if (len > sizeof(s->ticket))
			return fk_err(EINVAL);
		memcpy(s->ticket, val, len);
		s->ticket_len = len;
		break;
	default:
		return fk_err(ENOPROTOOPT);
	}
	pthread_mutex_unlock(&fk_lock);
	return 0;
}

static int fk_copy_out(void *val, socklen_t *len, const void *data, size_t n)
{
	if (*len < n)
		return fk_err(EINVAL);
	memcpy(val, data, n);
	*len = (socklen_t)n;
	pthread_mutex_unlock(&fk_lock);
	return 0;
}

int __wrap_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct fk_sock *s;

	pthread_mutex_lock(&fk_lock);
	s = fk_lookup(fd);
	if (!s || level != SOL_QUIC) {
		pthread_mutex_unlock(&fk_lock);
		return __real_getsockopt(fd, level, name, val, len);
	}
	switch (name) {
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		return fk_copy_out(val, len, s->tp_local, s->tp_local_len);
	case QUIC_SOCKOPT_ALPN:
		return fk_copy_out(val, len, s->alpn_preset, s->alpn_preset_len);
	case QUIC_SOCKOPT_SESSION_TICKET:
		return fk_copy_out(val, len, s->ticket, s->ticket_len);
	case QUIC_SOCKOPT_CONNECTION_CLOSE:
		return fk_copy_out(val, len, &s->peer_close, sizeof(s->peer_close));
	case QUIC_SOCKOPT_CONFIG:
		return fk_copy_out(val, len, &s->config, sizeof(s->config));
	default:
		return fk_err(ENOPROTOOPT);
	}
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct timespec deadline;
	struct fk_sock *s;
	int ret = 0;

	pthread_mutex_lock(&fk_lock);
	s = n == 1 ? fk_lookup(fds[0].fd) : NULL;
	if (!s) {
		pthread_mutex_unlock(&fk_lock);
		return __real_poll(fds, n, timeout);
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	if (timeout >= 0) {
		deadline.tv_sec += timeout / 1000;
		deadline.tv_nsec += (long)(timeout % 1000) * 1000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
	}
	for (;;) {
		fds[0].revents = 0;
		if ((fds[0].events & POLLIN) && (s->rx_head || s->peer_closed))
			fds[0].revents |= POLLIN;
		if (fds[0].events & POLLOUT)
			fds[0].revents |= POLLOUT;
		if (fds[0].revents) {
			ret = 1;
			break;
		}
		if (timeout < 0)
			pthread_cond_wait(&fk_cond, &fk_lock);
		else if (pthread_cond_timedwait(&fk_cond, &fk_lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&fk_lock);
	return ret;
}
