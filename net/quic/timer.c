// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC timers: loss detection and PTO (RFC 9002 §6), idle timeout
 * (RFC 9000 §10.1) and keepalive PINGs (§10.1.2), the end of the closing
 * or draining period (§10.2) and of the previous 1-RTT receive keys
 * (RFC 9001 §6.5).  Handlers run in softirq; when a user holds the
 * socket they set a deferred bit and quic_release_cb() does the work on
 * release_sock().
 *
 * Every armed timer holds a socket reference (sk_reset_timer()).
 */

#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <net/sock.h>

#include "socket.h"

/*
 * The jiffy a timer for @deadline (quic_now() microseconds) runs in: the
 * next one after it (jiffies round down), or this one if it is overdue.
 */
static unsigned long quic_us_to_jiffies_from_now(u64 deadline, u64 now)
{
	u64 delta;

	if (deadline <= now)
		return jiffies;
	delta = min_t(u64, deadline - now, 3600ULL * USEC_PER_SEC);
	return jiffies + usecs_to_jiffies(delta) + 1;
}

/*
 * Arm @timer for @deadline, unless it is pending and fires no later than
 * that: its handler (the loss/PTO and idle timers') finds it early,
 * re-reads the state and arms it again.  These deadlines mostly move
 * later (each packet sent moves the PTO, each received the idle timeout)
 * and are recomputed after every sendmsg() and every packet received:
 * an RR 4 KiB transaction called mod_timer() 13.5 times, each taking the
 * timer base's lock with interrupts off, and moving the timer between
 * the two CPUs' bases as the two ends ran on either.  Now a timer moves
 * only to fire sooner.  And a timer already due stays as it is: moving
 * an overdue one to the next jiffy every time could keep it from ever
 * running while the user calls faster than softirqs get to expire it (a
 * loaded guest), so that a PTO never fired and the connection went
 * silent.
 */
static void quic_timer_set(struct sock *sk, struct timer_list *timer,
			   u64 deadline, u64 now)
{
	unsigned long when = quic_us_to_jiffies_from_now(deadline, now);

	if (timer_pending(timer) && time_before_eq(timer->expires, when))
		return;
	sk_reset_timer(sk, timer, when);
}

/* When the idle timeout (at least 3 * PTO, RFC 9000 §10.1) runs out; 0: never. */
static u64 quic_idle_expiry(const struct quic_sock *qs)
{
	return quic_idle_deadline(&qs->idle,
				  quic_pto_duration(&qs->rtt, qs->ld.max_ack_delay,
						    QUIC_PN_SPACE_APP));
}

/*
 * When the next keepalive PING is due, 0: never.  QUIC_SOCKOPT_CONFIG's
 * keepalive_probe_interval (microseconds) after the later of the last
 * restart of the idle timer (a packet received, or the first ack-eliciting
 * one sent since) and the last keepalive PING.
 */
static u64 quic_keepalive_due(const struct sock *sk)
{
	const struct quic_sock *qs = quic_sk(sk);
	u64 interval = qs->config.keepalive_probe_interval;

	if (!interval || sk->sk_state != QUIC_SS_ESTABLISHED)
		return 0;
	return max(qs->idle.last_restart, qs->keepalive_sent) + interval;
}

/* The idle timer serves both: whichever of the two comes first. */
static u64 quic_idle_timer_due(const struct sock *sk)
{
	u64 idle = quic_idle_expiry(quic_sk(sk)), ka = quic_keepalive_due(sk);

	if (ka && (!idle || ka < idle))
		return ka;
	return idle;
}

/* Recompute the loss/PTO timer and the idle timer from the current state. */
void quic_timer_rearm(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_ld_timer t;
	u64 now = quic_now(), idle;

	if (sk->sk_state != QUIC_SS_CONNECTING &&
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return;

	/*
	 * With nothing in flight the timer is left to fire and find nothing
	 * (quic_retransmit_fire()), as the next packet sent would arm it
	 * again: request/response empties the flight once per message.
	 */
	quic_ld_arm(&qs->ld, &qs->rtt, now, &t);
	if (t.mode != QUIC_LD_NONE)
		quic_timer_set(sk, &qs->retransmit_timer, t.deadline, now);

	idle = quic_idle_timer_due(sk);
	if (idle)
		quic_timer_set(sk, &qs->idle_timer, idle, now);
}

static void quic_retransmit_fire(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_ld_timer t;
	u64 now = quic_now();

	if (sk->sk_state != QUIC_SS_CONNECTING &&
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return;
	quic_ld_arm(&qs->ld, &qs->rtt, now, &t);
	if (t.mode == QUIC_LD_NONE)
		return;
	if (t.deadline > now) {
		quic_timer_rearm(sk);	/* fired early (jiffies rounding) */
		return;
	}
	quic_retransmit_space(sk, t.space, t.mode != QUIC_LD_LOSS);
	quic_output(sk);
}

static void quic_idle_fire(struct sock *sk)
{
	static const u8 ping = QUIC_FRAME_PING;
	struct quic_sock *qs = quic_sk(sk);
	u64 now = quic_now(), idle, ka;

	if (sk->sk_state != QUIC_SS_CONNECTING &&
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return;
	idle = quic_idle_expiry(qs);
	if (idle && idle <= now) {
		quic_conn_idle_timeout(sk);
		return;
	}
	ka = quic_keepalive_due(sk);
	if (ka && ka <= now) {
		/* The peer's ACK of it restarts both ends' idle timers. */
		qs->keepalive_sent = now;
		if (!quic_output_ctrl(sk, QUIC_CRYPTO_APP, &ping, 1,
				      QUIC_FRAME_PING))
			quic_output(sk);
	}
	quic_timer_rearm(sk);
}

/*
 * Work that must sleep runs on a module-owned workqueue, so that module
 * exit waits for the last item: the release of orphaned sockets (closed by
 * the user during a connection; releasing the UDP tunnel socket sleeps)
 * and the derivation of the next 1-RTT keys (key_update.c).
 */
static struct workqueue_struct *quic_wq;

int quic_timer_wq_init(void)
{
	quic_wq = alloc_workqueue("quic", WQ_UNBOUND, 0);
	return quic_wq ? 0 : -ENOMEM;
}

void quic_timer_wq_exit(void)
{
	destroy_workqueue(quic_wq);
}

static void quic_release_work(struct work_struct *work)
{
	struct quic_sock *qs = container_of(work, struct quic_sock,
					    release_work);
	struct sock *sk = &qs->inet.sk;

	sk_common_release(sk);	/* the reference the user's socket held */
	sock_put(sk);		/* the work's */
}

/* Run @work in process context; it holds a socket reference till done. */
void quic_queue_work(struct sock *sk, struct work_struct *work)
{
	sock_hold(sk);
	if (!queue_work(quic_wq, work))
		sock_put(sk);	/* already queued */
}

/* A connection whose user closed the socket has ended: release it. */
void quic_timer_release_orphan(struct sock *sk)
{
	if (!sock_flag(sk, SOCK_DEAD))
		return;
	sock_hold(sk);
	if (!queue_work(quic_wq, &quic_sk(sk)->release_work))
		sock_put(sk);	/* already queued */
}

static void quic_close_fire(struct sock *sk)
{
	if (sk->sk_state != QUIC_SS_CLOSING && sk->sk_state != QUIC_SS_DRAINING)
		return;
	quic_set_state(sk, QUIC_SS_CLOSED);
	quic_timer_release_orphan(sk);
}

/*
 * Run @fn now, or on release_sock() if a user holds the socket.  A closed
 * socket runs nothing: sk_stop_timer() in ->destroy() does not wait for a
 * handler already started, which may get the lock only once the
 * connection's state is freed.  The state became QUIC_SS_CLOSED under the
 * socket lock before that, so this check, under the same lock, sees it.
 * Datagrams left in the backlog for a reader are processed first, as they
 * came before (input.c): an ACK there may make a loss timer moot.
 */
static void quic_timer_run(struct sock *sk, void (*fn)(struct sock *sk),
			   enum quic_deferred bit)
{
	bh_lock_sock(sk);
	if (sk->sk_state == QUIC_SS_CLOSED)
		goto out;
	if (!sock_owned_by_user(sk)) {
		quic_rx_drain_bh(sk);
		fn(sk);
	} else if (!test_and_set_bit(bit, &quic_sk(sk)->deferred)) {
		sock_hold(sk);	/* dropped by quic_release_cb() */
	}
out:
	bh_unlock_sock(sk);
	sock_put(sk);		/* the timer's reference */
}

static void quic_retransmit_timer(struct timer_list *t)
{
	struct quic_sock *qs = from_timer(qs, t, retransmit_timer);

	quic_timer_run(&qs->inet.sk, quic_retransmit_fire,
		       QUIC_DEFER_RETRANSMIT);
}

static void quic_idle_timer(struct timer_list *t)
{
	struct quic_sock *qs = from_timer(qs, t, idle_timer);

	quic_timer_run(&qs->inet.sk, quic_idle_fire, QUIC_DEFER_IDLE);
}

/* Delayed ACKs whose time has come go out now. */
static void quic_ack_fire(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	u64 now = quic_now(), next = 0;
	bool due = false;
	int i;

	if (sk->sk_state != QUIC_SS_CONNECTING &&
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return;
	for (i = 0; i < QUIC_PN_SPACE_MAX; i++) {
		struct quic_space *space = &qs->space[i];

		if (space->discarded || !space->ack.pending)
			continue;
		if (quic_ack_due(&space->ack, now)) {
			space->ack_pending = true;
			due = true;
		} else if (space->ack.deadline &&
			   (!next || space->ack.deadline < next)) {
			next = space->ack.deadline;
		}
	}
	if (due)
		quic_output(sk);
	if (next)
		quic_timer_ack(sk, next);
}

static void quic_ack_timer(struct timer_list *t)
{
	struct quic_sock *qs = from_timer(qs, t, ack_timer);

	quic_timer_run(&qs->inet.sk, quic_ack_fire, QUIC_DEFER_ACK);
}

/* Arm the ACK timer for @deadline, unless it fires before that anyway. */
void quic_timer_ack(struct sock *sk, u64 deadline)
{
	struct quic_sock *qs = quic_sk(sk);
	unsigned long when = quic_us_to_jiffies_from_now(deadline, quic_now());

	if (timer_pending(&qs->ack_timer) &&
	    time_before_eq(qs->ack_timer.expires, when))
		return;
	sk_reset_timer(sk, &qs->ack_timer, when);
}

/*
 * Pacing (RFC 9002 §7.7) held packets back: sending resumes at the
 * departure time the pacer gave.  A high-resolution timer, as the gaps
 * between paced packets are far below a jiffy.
 */
static void quic_pace_fire(struct sock *sk)
{
	quic_output(sk);
}

static enum hrtimer_restart quic_pace_timer(struct hrtimer *t)
{
	struct quic_sock *qs = container_of(t, struct quic_sock, pace_timer);

	quic_timer_run(&qs->inet.sk, quic_pace_fire, QUIC_DEFER_PACE);
	return HRTIMER_NORESTART;
}

/* Resume sending at @when (quic_now() microseconds). */
void quic_timer_pace(struct sock *sk, u64 when)
{
	struct quic_sock *qs = quic_sk(sk);

	if (hrtimer_is_queued(&qs->pace_timer))
		return;
	sock_hold(sk);		/* dropped by quic_timer_run() */
	/* quic_now() is CLOCK_MONOTONIC in microseconds, plus one. */
	hrtimer_start(&qs->pace_timer, ns_to_ktime((when - 1) * NSEC_PER_USEC),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

/* The previous 1-RTT receive keys have served their time (key_update.c). */
static void quic_key_fire(struct sock *sk)
{
	quic_key_update_discard_prev(sk);
}

static void quic_key_timer(struct timer_list *t)
{
	struct quic_sock *qs = from_timer(qs, t, key_timer);

	quic_timer_run(&qs->inet.sk, quic_key_fire, QUIC_DEFER_KEY);
}

/* Arm the key timer for @deadline (quic_now() microseconds); 0 stops it. */
void quic_timer_key(struct sock *sk, u64 deadline)
{
	struct quic_sock *qs = quic_sk(sk);

	if (!deadline) {
		sk_stop_timer(sk, &qs->key_timer);
		return;
	}
	sk_reset_timer(sk, &qs->key_timer,
		       quic_us_to_jiffies_from_now(deadline, quic_now()));
}

static void quic_close_timer(struct timer_list *t)
{
	struct quic_sock *qs = from_timer(qs, t, close_timer);

	quic_timer_run(&qs->inet.sk, quic_close_fire, QUIC_DEFER_CLOSE);
}

void quic_timers_init(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	timer_setup(&qs->retransmit_timer, quic_retransmit_timer, 0);
	timer_setup(&qs->idle_timer, quic_idle_timer, 0);
	timer_setup(&qs->close_timer, quic_close_timer, 0);
	timer_setup(&qs->ack_timer, quic_ack_timer, 0);
	timer_setup(&qs->key_timer, quic_key_timer, 0);
	hrtimer_init(&qs->pace_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_PINNED_SOFT);
	qs->pace_timer.function = quic_pace_timer;
	INIT_WORK(&qs->release_work, quic_release_work);
	qs->deferred = 0;
}

void quic_timers_stop(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	sk_stop_timer(sk, &qs->retransmit_timer);
	sk_stop_timer(sk, &qs->idle_timer);
	sk_stop_timer(sk, &qs->close_timer);
	sk_stop_timer(sk, &qs->ack_timer);
	sk_stop_timer(sk, &qs->key_timer);
	if (hrtimer_try_to_cancel(&qs->pace_timer) == 1)
		__sock_put(sk);
}

/* Enter the closing or draining period: only the close timer runs. */
void quic_timer_close(struct sock *sk, u64 delay_us)
{
	struct quic_sock *qs = quic_sk(sk);

	sk_stop_timer(sk, &qs->retransmit_timer);
	sk_stop_timer(sk, &qs->idle_timer);
	sk_reset_timer(sk, &qs->close_timer,
		       jiffies + usecs_to_jiffies(delay_us) + 1);
}

/* release_sock(): the timer work that found the socket busy. */
void quic_release_cb(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	/* The backlog was just processed (input.c). */
	quic_input_flush(sk);
	if (test_and_clear_bit(QUIC_DEFER_RETRANSMIT, &qs->deferred)) {
		quic_retransmit_fire(sk);
		__sock_put(sk);
	}
	if (test_and_clear_bit(QUIC_DEFER_IDLE, &qs->deferred)) {
		quic_idle_fire(sk);
		__sock_put(sk);
	}
	if (test_and_clear_bit(QUIC_DEFER_CLOSE, &qs->deferred)) {
		quic_close_fire(sk);
		__sock_put(sk);
	}
	if (test_and_clear_bit(QUIC_DEFER_ACK, &qs->deferred)) {
		quic_ack_fire(sk);
		__sock_put(sk);
	}
	if (test_and_clear_bit(QUIC_DEFER_PACE, &qs->deferred)) {
		quic_pace_fire(sk);
		__sock_put(sk);
	}
	if (test_and_clear_bit(QUIC_DEFER_KEY, &qs->deferred)) {
		quic_key_fire(sk);
		__sock_put(sk);
	}
}
