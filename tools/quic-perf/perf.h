/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quic-perf: an iperf3-like measuring tool over IPPROTO_QUIC sockets and
 * libquic.  See quic-perf.1 for the command line and the protocol.
 */
#ifndef QUIC_PERF_H
#define QUIC_PERF_H

#include <stdint.h>
#include <stdio.h>
#include <gnutls/gnutls.h>

#include "size.h"

#define PERF_ALPN	"quic-perf"
#define PERF_PORT	"5201"
#define PERF_LINE_MAX	512
#define PERF_CTL_SID	0	/* the client's first bidirectional stream */

enum perf_mode { MODE_BULK, MODE_RR, MODE_HS, MODE_IDLE };

struct perf_opts {
	int server;
	const char *host;
	const char *port;
	const char *bind;
	enum perf_mode mode;
	int reverse;		/* -R: the server sends */
	double time;		/* seconds; 0: use bytes */
	uint64_t bytes;		/* total to send when time is 0 */
	size_t len;		/* write size; message size in RR mode */
	int streams;		/* -P: parallel streams */
	uint64_t stream_size;	/* 0: each stream lasts the whole test */
	int conns;		/* --idle N: connections to hold */
	double interval;	/* progress line period, 0: none */
	int json;
	int one_off;
	int insecure;
	const char *ca;
	const char *cert;
	const char *key;
	const char *psk;
	int nodelay;		/* stream_data_nodelay (RR turns it on) */
};

/* what the peer says at the end of a test, and our own view */
struct perf_cpu {
	double user, sys, wall;
};

/* common.c */
double perf_now(void);
void perf_cpu_get(struct perf_cpu *c);
void perf_cpu_sub(struct perf_cpu *d, const struct perf_cpu *a,
		  const struct perf_cpu *b);
int perf_tls_client(int fd, const struct perf_opts *o);
int perf_tls_server(int fd, const struct perf_opts *o);
int perf_tls_server_init(const struct perf_opts *o);
int perf_send(int fd, const void *buf, size_t len, int64_t sid, uint32_t flags);
int perf_ctl_printf(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int perf_kv(const char *line, const char *key, char *val, size_t len);
uint64_t perf_kv_u64(const char *line, const char *key, uint64_t def);
double perf_kv_double(const char *line, const char *key, double def);
int perf_wait_readable(int fd, int ms);
int perf_recv_timeout(int fd, int ms);
int perf_set_config(int fd, const struct perf_opts *o);
void perf_fill(uint8_t *buf, size_t len);

/* control-stream line reader */
struct perf_ctl {
	char buf[PERF_LINE_MAX];
	size_t len;
	/*
	 * Bytes of other streams read while waiting for a control line: a
	 * bulk sender's first data may be read before its QPERF1 line (a
	 * reordered or resent packet); perf_bulk_recv() counts them.
	 */
	uint64_t early_bytes;
};
int perf_ctl_add(struct perf_ctl *c, const uint8_t *data, size_t n);
int perf_ctl_line(struct perf_ctl *c, char *line, size_t lsz);

/* client.c, server.c */
int perf_client(const struct perf_opts *o);
int perf_server(const struct perf_opts *o);

/* args.c */
int perf_parse_args(int argc, char **argv, struct perf_opts *o);

#endif
