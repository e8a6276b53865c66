// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC stream file descriptors (quic(7), STREAM FILE DESCRIPTORS):
 * getsockopt(QUIC_SOCKOPT_STREAM_PEELOFF) gives one stream of a connection
 * a file of its own, as SCTP peels off an association, so that read(),
 * write(), splice(), sendfile() and poll() work on that stream as on a
 * pipe, and close() ends it with a FIN.
 *
 * The file is an anonymous inode that refers to the connection's socket
 * by holding a reference to the socket's own struct file, as a dup() of
 * it would, and to the stream by its id.  So:
 *
 *  - the socket (and with it the connection) lives as long as any of its
 *    stream files, whatever the user does with the socket's descriptor; no
 *    connection object separate from struct quic_sock is needed, and every
 *    operation works under the socket lock as the socket's calls do;
 *  - the file needs no pointer into the stream table: each call looks the
 *    stream up by id under the lock.  Stream ids are never reused, and a
 *    stream is freed only once both of its directions are done, its end
 *    (or reset) read through this file included, so "not found" means
 *    "finished": reads give 0, writes EPIPE;
 *  - the file's owner is this module (anon_inode_getfile() takes a module
 *    reference), so quic.ko cannot go while a stream file is open.
 *
 * Waiting and poll() use the socket's wait queue: every stream's data,
 * credit and state changes wake it, and a waiter rechecks its own stream
 * under the lock.  A queue per stream would save the rechecks of waiters
 * of other streams, at the cost of a wake-up call at every place a
 * stream's state changes; a connection has few peeled streams, so the
 * shared queue is kept.
 */

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "socket.h"
#include "stream_fd.h"

/* A stream's file: set up before the file is installed, then read only. */
struct quic_stream_file {
	struct file	*parent;	/* the socket's file: holds the socket */
	struct socket	*sock;		/* of @parent, while we hold it */
	struct sock	*sk;		/* sock->sk, while we hold @parent */
	u64		id;		/* the stream */
};

static bool quic_stream_file_nonblock(const struct kiocb *iocb)
{
	return (iocb->ki_filp->f_flags & O_NONBLOCK) ||
	       (iocb->ki_flags & IOCB_NOWAIT);
}

/*
 * A read found nothing: wait for the socket to change, and return 0 to look
 * again, or the error that ends the read: the connection's (its end before
 * the stream's is ECONNRESET: the stream was cut short), EAGAIN once the
 * timeout is spent, EINTR or ERESTARTSYS for a signal.  Socket lock held,
 * released while sleeping; no wake-up is lost, since the lock is held from
 * the caller's check until the wait queue entry is in.
 */
static int quic_stream_file_wait(struct sock *sk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = READ_ONCE(sk->sk_err);

	if (err)
		return -err;
	if (sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ECONNRESET;
	if (!*timeo)
		return -EAGAIN;
	if (signal_pending(current))
		return sock_intr_errno(*timeo);
	add_wait_queue(sk_sleep(sk), &wait);
	sk_wait_event(sk, timeo, READ_ONCE(sk->sk_err) ||
		      READ_ONCE(sk->sk_state) != QUIC_SS_ESTABLISHED, &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
	if (signal_pending(current))
		return sock_intr_errno(*timeo);
	return 0;
}

static ssize_t quic_stream_file_read_iter(struct kiocb *iocb,
					  struct iov_iter *to)
{
	struct quic_stream_file *sf = iocb->ki_filp->private_data;
	struct sock *sk = sf->sk;
	long timeo;
	int ret;

	if (!iov_iter_count(to))
		return 0;
	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, quic_stream_file_nonblock(iocb));
	for (;;) {
		/* What was received is read even after the connection ended. */
		ret = quic_stream_recv_one(sk, sf->id, to);
		if (ret != -EAGAIN)
			break;
		ret = quic_stream_file_wait(sk, &timeo);
		if (ret)
			break;
	}
	release_sock(sk);
	return ret;
}

static ssize_t quic_stream_file_write_iter(struct kiocb *iocb,
					   struct iov_iter *from)
{
	struct quic_stream_file *sf = iocb->ki_filp->private_data;
	struct msghdr msg = { .msg_iter = *from };
	size_t len = iov_iter_count(from);
	struct sock *sk = sf->sk;
	int ret = -EPIPE;

	if (quic_stream_file_nonblock(iocb))
		msg.msg_flags = MSG_DONTWAIT;
	lock_sock(sk);
	if (sk->sk_state == QUIC_SS_ESTABLISHED &&
	    !(sk->sk_shutdown & SEND_SHUTDOWN))
		ret = quic_stream_send_one(sk, sf->id, &msg, len,
					   msg.msg_flags);
	release_sock(sk);
	if (ret > 0)
		*from = msg.msg_iter;
	if (ret == -EPIPE)
		send_sig(SIGPIPE, current, 0);	/* as a pipe does */
	return ret;
}

static __poll_t quic_stream_file_poll(struct file *file,
				      struct poll_table_struct *wait)
{
	struct quic_stream_file *sf = file->private_data;
	struct sock *sk = sf->sk;
	struct quic_stream *s;
	__poll_t mask = 0;
	bool live;

	sock_poll_wait(file, sf->sock, wait);
	/* Finding the stream walks the stream table: under the lock. */
	lock_sock(sk);
	live = sk->sk_state == QUIC_SS_ESTABLISHED;
	s = quic_stream_find(sk, sf->id);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (!s || !live)
		mask |= EPOLLHUP;
	if (file->f_mode & FMODE_READ) {
		/* Its end, or its reset, is in: what is left is to read. */
		if (!s || s->recv_state >= QUIC_STREAM_RECV_STATE_RECVD)
			mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
		else if (!skb_queue_empty(&s->ready) || !live)
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	if ((file->f_mode & FMODE_WRITE) &&
	    (!live || quic_stream_send_ready(sk, sf->id)))
		mask |= EPOLLOUT | EPOLLWRNORM;
	else if ((file->f_mode & FMODE_WRITE) && sk->sk_socket)
		/* Freed send buffer wakes us (quic_stream_free_acked()). */
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
	release_sock(sk);
	return mask;
}

/*
 * The last reference to the file is gone: the stream ends.  A FIN goes out
 * after what was written, if the stream is still open for writing; what
 * the peer still sends is not wanted: STOP_SENDING, and what is there or
 * comes is dropped.  Then the socket may go.
 */
static int quic_stream_file_release(struct inode *inode, struct file *file)
{
	struct quic_stream_file *sf = file->private_data;
	struct sock *sk = sf->sk;
	struct msghdr msg = {};
	struct quic_stream *s;

	lock_sock(sk);
	s = quic_stream_find(sk, sf->id);
	if (s) {
		s->peel = QUIC_STREAM_PEEL_CLOSED;
		if (sk->sk_state == QUIC_SS_ESTABLISHED) {
			/* Errors mean nothing is left to end. */
			quic_stream_send_one(sk, sf->id, &msg, 0,
					     MSG_QUIC_STREAM_FIN | MSG_DONTWAIT);
			quic_stream_stop_sending(sk, sf->id, 0);
		}
		s = quic_stream_find(sk, sf->id);
		if (s)
			quic_stream_recv_discard(sk, s);
		quic_output(sk);
	}
	release_sock(sk);
	fput(sf->parent);
	kfree(sf);
	return 0;
}

static const struct file_operations quic_stream_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= quic_stream_file_read_iter,
	.write_iter	= quic_stream_file_write_iter,
	.splice_read	= copy_splice_read,
	.splice_write	= iter_file_splice_write,
	.poll		= quic_stream_file_poll,
	.release	= quic_stream_file_release,
};

/* The open mode of stream @id's file: the directions it has for us. */
static int quic_stream_file_mode(const struct sock *sk, u64 id)
{
	bool is_server = quic_sk(sk)->is_server;
	bool rd = quic_stream_id_can_recv(id, is_server);
	bool wr = quic_stream_id_can_send(id, is_server);

	return rd && wr ? O_RDWR : rd ? O_RDONLY : O_WRONLY;
}

/* Check the request, and open the stream for an id of -1. */
static int quic_stream_peeloff_check(struct sock *sk,
				     struct quic_stream_peeloff *p)
{
	struct socket *sock = sk->sk_socket;

	if (p->reserved || (p->flags & ~(O_CLOEXEC | O_NONBLOCK)) ||
	    p->stream_id < -1 || (p->stream_flags & ~QUIC_STREAM_OPEN_FLAGS) ||
	    (p->stream_id >= 0 && p->stream_flags))
		return -EINVAL;
	if (!sock || !sock->file)
		return -EOPNOTSUPP;	/* a kernel socket: no file to refer to */
	if (sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ENOTCONN;
	if (p->stream_id >= 0)
		return 0;
	return quic_stream_open_user(sk, -1, p->stream_flags,
				     sock->file->f_flags & O_NONBLOCK,
				     &p->stream_id);
}

int quic_stream_peeloff(struct sock *sk, char __user *optval,
			int __user *optlen, int len)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct quic_stream_peeloff p;
	struct quic_stream_file *sf;
	struct quic_stream *s;
	struct file *file;
	int fd, err;

	if (len < sizeof(p))
		return -EINVAL;
	if (copy_from_user(&p, optval, sizeof(p)))
		return -EFAULT;
	err = quic_stream_peeloff_check(sk, &p);
	if (err)
		return err;
	s = quic_stream_find(sk, p.stream_id);
	if (!s)
		return -EINVAL;
	if (s->peel != QUIC_STREAM_PEEL_NONE)
		return -EBUSY;

	sf = kzalloc(sizeof(*sf), GFP_KERNEL_ACCOUNT);
	if (!sf)
		return -ENOMEM;
	fd = get_unused_fd_flags(p.flags & O_CLOEXEC);
	if (fd < 0) {
		err = fd;
		goto err_free;
	}
	/* The answer goes out first: nothing can fail once the file exists. */
	p.fd = fd;
	err = -EFAULT;
	if (put_user(sizeof(p), optlen) || copy_to_user(optval, &p, sizeof(p)))
		goto err_fd;
	file = anon_inode_getfile("[quic-stream]", &quic_stream_fops, sf,
				  quic_stream_file_mode(sk, p.stream_id) |
				  (p.flags & O_NONBLOCK));
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto err_fd;
	}
	stream_open(file_inode(file), file);	/* no file position */
	sf->sock = sk->sk_socket;
	sf->parent = get_file(sf->sock->file);
	sf->sk = sk;
	sf->id = p.stream_id;

	/* From here the stream is read and written through the file only. */
	s->peel = QUIC_STREAM_PEEL_OPEN;
	list_del_init(&s->read_node);
	if (st->last_send_id == p.stream_id)
		st->last_send_id = -1;
	fd_install(fd, file);
	return 0;

err_fd:
	put_unused_fd(fd);
err_free:
	kfree(sf);
	return err;
}
