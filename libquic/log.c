// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Messages.  The library never writes to stderr on its own: messages go to
 * the function set with quic_set_log_func(), or to stderr only when the
 * environment variable QUIC_LOG asks for it.
 */

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static quic_set_log_func_t log_func;
static int log_level;		/* 0: nothing */
static int log_stderr;		/* QUIC_LOG was set */
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_init(void)
{
	const char *env = getenv("QUIC_LOG");

	if (env && *env) {
		log_level = atoi(env);
		if (log_level <= 0)
			log_level = QUIC_LOG_ERROR;
		log_stderr = 1;
	}
}

QUIC_EXPORT quic_set_log_func_t quic_set_log_func(quic_set_log_func_t func)
{
	quic_set_log_func_t old;

	pthread_once(&log_once, log_init);
	pthread_mutex_lock(&log_lock);
	old = log_func;
	log_func = func;
	if (func && !log_level)
		log_level = QUIC_LOG_ERROR;
	pthread_mutex_unlock(&log_lock);
	return old;
}

QUIC_EXPORT int quic_set_log_level(int level)
{
	int old;

	pthread_once(&log_once, log_init);
	pthread_mutex_lock(&log_lock);
	old = log_level;
	log_level = level;
	pthread_mutex_unlock(&log_lock);
	return old;
}

int quic_log_enabled(int level)
{
	int on;

	pthread_once(&log_once, log_init);
	pthread_mutex_lock(&log_lock);
	on = level <= log_level && (log_func || log_stderr);
	pthread_mutex_unlock(&log_lock);
	return on;
}

void quic_log(int level, const char *fmt, ...)
{
	quic_set_log_func_t func;
	char msg[512];
	va_list ap;

	if (!quic_log_enabled(level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&log_lock);
	func = log_func;
	pthread_mutex_unlock(&log_lock);
	if (func)
		func(level, msg);
	else
		fprintf(stderr, "libquic: %s\n", msg);
}
