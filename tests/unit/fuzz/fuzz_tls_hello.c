// SPDX-License-Identifier: GPL-2.0
/*
 * ClientHello ALPN parser.  Properties: the result is one of the four
 * documented ones; names found lie inside the input and iterate to exactly
 * the list's length; a prefix of the input never contradicts the whole:
 * it finds the same names or asks for more bytes.
 */
#include "fuzz_common.h"
#include "tls_hello.h"

static int parse(const u8 *buf, size_t len, const u8 **names, size_t *nlen)
{
	int err = quic_tls_hello_alpn(buf, len, names, nlen);

	FUZZ_ASSERT(!err || err == -ENOENT || err == -EAGAIN ||
		    err == -EBADMSG);
	return err;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 *buf = fuzz_dup(data, size);
	const u8 *names, *p, *name, *pnames;
	size_t nlen, left, sum = 0, pnlen, cut, end = 4;
	u8 len;
	int err, perr, r;

	err = parse(buf, size, &names, &nlen);
	if (!err) {
		FUZZ_ASSERT(names >= buf && names + nlen <= buf + size);
		p = names;
		left = nlen;
		while ((r = quic_tls_alpn_next(&p, &left, &name, &len)) > 0) {
			FUZZ_ASSERT(len >= 1);
			sum += 1 + len;
		}
		FUZZ_ASSERT(r == 0 && sum == nlen);
	}
	/* Cuts inside the message: past its end, the bytes are not read. */
	if (size >= 4)
		end = 4 + ((size_t)buf[1] << 16 | buf[2] << 8 | buf[3]);
	for (cut = 0; cut < size && cut < end; cut += 1 + size / 8) {
		perr = parse(buf, cut, &pnames, &pnlen);
		if (err == -EBADMSG)
			continue;
		/* A prefix of a well-formed message is not malformed. */
		FUZZ_ASSERT(perr != -EBADMSG);
		if (!perr)
			FUZZ_ASSERT(!err && pnames == names && pnlen == nlen);
		else
			FUZZ_ASSERT(perr == -EAGAIN || perr == err);
	}
	free(buf);
	return 0;
}
