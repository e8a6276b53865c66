// SPDX-License-Identifier: GPL-2.0
/*
 * The address-validation token layout (net/quic/token_codec.c): both types
 * round-trip, every truncation and extension is refused, unknown types are
 * not ours, the MAC message binds what each type must bind, and expiry.
 */
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <linux/errno.h>

#include "token.h"
#include "suites.h"
#include "tap.h"

static void retry_token(struct quic_token *t)
{
	memset(t, 0, sizeof(*t));
	t->type = QUIC_TOKEN_RETRY;
	t->expiry = 0x0102030405060708ULL;
	t->odcid.len = 20;
	memset(t->odcid.data, 0xcd, 20);
}

static void test_roundtrip(void)
{
	u8 buf[QUIC_TOKEN_LEN_MAX];
	struct quic_token t, d;
	int n;

	tap_begin("token: Retry and NEW tokens round-trip");
	retry_token(&t);
	n = quic_token_encode(buf, sizeof(buf), &t);
	EXPECT_EQ(n, QUIC_TOKEN_BODY_MAX);
	memset(buf + n, 0xee, QUIC_TOKEN_MAC_LEN);
	EXPECT_EQ(quic_token_decode(buf, n + QUIC_TOKEN_MAC_LEN, &d), n);
	EXPECT_EQ(d.type, QUIC_TOKEN_RETRY);
	EXPECT_EQ(d.expiry, t.expiry);
	EXPECT(quic_cid_eq(&d.odcid, &t.odcid));

	memset(&t, 0, sizeof(t));
	t.type = QUIC_TOKEN_NEW;
	t.expiry = 42;
	memset(t.nonce, 7, sizeof(t.nonce));
	n = quic_token_encode(buf, sizeof(buf), &t);
	EXPECT_EQ(n, 1 + 8 + QUIC_TOKEN_NONCE_LEN);
	EXPECT_EQ(quic_token_decode(buf, n + QUIC_TOKEN_MAC_LEN, &d), n);
	EXPECT_EQ(d.type, QUIC_TOKEN_NEW);
	EXPECT_EQ(d.expiry, 42);
	EXPECT_MEM(d.nonce, t.nonce, sizeof(t.nonce));
	tap_end();
}

static void test_malformed(void)
{
	u8 buf[QUIC_TOKEN_LEN_MAX + 1];
	struct quic_token t, d;
	int n, i, bad = 0;

	tap_begin("token: truncated, extended, foreign and oversized refused");
	retry_token(&t);
	n = quic_token_encode(buf, sizeof(buf), &t);
	memset(buf + n, 0, QUIC_TOKEN_MAC_LEN + 1);
	for (i = 0; i < n + QUIC_TOKEN_MAC_LEN; i++)
		if (quic_token_decode(buf, i, &d) != -EINVAL)
			bad++;
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(quic_token_decode(buf, n + QUIC_TOKEN_MAC_LEN + 1, &d),
		  -EINVAL);
	buf[0] = 0x00;		/* another server's token */
	EXPECT_EQ(quic_token_decode(buf, n + QUIC_TOKEN_MAC_LEN, &d), -EINVAL);
	buf[0] = QUIC_TOKEN_RETRY;
	buf[9] = QUIC_CID_MAX_LEN + 1;	/* ODCID length beyond the limit */
	EXPECT_EQ(quic_token_decode(buf, n + QUIC_TOKEN_MAC_LEN, &d), -EINVAL);
	t.type = 3;
	EXPECT_EQ(quic_token_encode(buf, sizeof(buf), &t), -EINVAL);
	retry_token(&t);
	EXPECT_EQ(quic_token_encode(buf, 10, &t), -ENOSPC);
	tap_end();
}

static void test_msg(void)
{
	u8 body[QUIC_TOKEN_BODY_MAX], m1[QUIC_TOKEN_MSG_MAX];
	u8 m2[QUIC_TOKEN_MSG_MAX];
	struct quic_token_bind b = { .ip_len = 4, .ip = { 10, 0, 0, 1 },
				     .port = { 0x12, 0x34 } };
	struct quic_token t;
	int n, l1, l2;

	tap_begin("token: the MAC message binds address, port and Retry SCID");
	retry_token(&t);
	b.rscid.len = 8;
	memset(b.rscid.data, 1, 8);
	n = quic_token_encode(body, sizeof(body), &t);
	l1 = quic_token_msg(m1, sizeof(m1), body, n, &t, &b);
	EXPECT_EQ(l1, n + 1 + 4 + 2 + 1 + 8);
	b.port[1] = 0x35;
	l2 = quic_token_msg(m2, sizeof(m2), body, n, &t, &b);
	EXPECT(l1 == l2 && memcmp(m1, m2, l1));
	b.port[1] = 0x34;
	b.rscid.data[7] = 2;
	l2 = quic_token_msg(m2, sizeof(m2), body, n, &t, &b);
	EXPECT(l1 == l2 && memcmp(m1, m2, l1));
	/* NEW tokens: the IP only, so the client may come from another port. */
	t.type = QUIC_TOKEN_NEW;
	n = quic_token_encode(body, sizeof(body), &t);
	l1 = quic_token_msg(m1, sizeof(m1), body, n, &t, &b);
	b.port[0] = 0x99;
	l2 = quic_token_msg(m2, sizeof(m2), body, n, &t, &b);
	EXPECT(l1 == l2 && !memcmp(m1, m2, l1));
	EXPECT_EQ(l1, n + 1 + 4);
	b.ip_len = 5;
	EXPECT_EQ(quic_token_msg(m1, sizeof(m1), body, n, &t, &b), -EINVAL);
	tap_end();
}

static void test_expiry(void)
{
	struct quic_token t = { .type = QUIC_TOKEN_RETRY, .expiry = 1000 };

	tap_begin("token: expiry, and lifetimes longer than the type's");
	EXPECT(!quic_token_expired(&t, 999));
	EXPECT(quic_token_expired(&t, 1000));
	t.expiry = 1000 + QUIC_TOKEN_RETRY_LIFE + 1;
	EXPECT(quic_token_expired(&t, 0));
	t.type = QUIC_TOKEN_NEW;
	EXPECT(!quic_token_expired(&t, 0));
	tap_end();
}

void token_tests(void)
{
	test_roundtrip();
	test_malformed();
	test_msg();
	test_expiry();
}
