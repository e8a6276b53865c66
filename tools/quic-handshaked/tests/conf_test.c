// SPDX-License-Identifier: GPL-2.0
/* The configuration file and PSK file parsers. */
#include <string.h>
#include "hsd.h"
#include "tap.h"

void hsd_log(const char *fmt, ...)
{
	(void)fmt;
}

static int parse(struct hsd_conf *c, const char *text, char *err)
{
	hsd_conf_defaults(c);
	err[0] = 0;
	return hsd_conf_parse(c, text, err, 128);
}

int main(void)
{
	struct hsd_conf c;
	struct hsd_psk psk[4];
	char err[128];
	int n, bad = 0;

	CHECK(parse(&c, "", err) == 0 && c.timeout_ms == 30000 &&
	      c.max_handshakes == 64 && !c.cert[0], "empty file: the defaults");
	CHECK(parse(&c, "# comment\n\n  cert = /a b/c.pem \nkey=/k.pem\r\nca = /ca\n"
		    "psk = /p\ntimeout = 1500\nmax-handshakes = 8\nverbose = 2\n", err) == 0 &&
	      !strcmp(c.cert, "/a b/c.pem") && !strcmp(c.key, "/k.pem") &&
	      !strcmp(c.ca, "/ca") && !strcmp(c.psk, "/p") && c.timeout_ms == 1500 &&
	      c.max_handshakes == 8 && c.verbose == 2, "every setting, spaces trimmed");
	CHECK(parse(&c, "cert = /c\n", err) && strstr(err, "together"),
	      "cert without key refused");
	CHECK(parse(&c, "timeout = 0\n", err) && strstr(err, "line 1"),
	      "timeout 0 refused, line named");
	CHECK(parse(&c, "\nmax-handshakes = -1\n", err) && strstr(err, "line 2"),
	      "negative max-handshakes refused");
	CHECK(parse(&c, "max-handshakes = 5000\n", err), "max-handshakes above 4096 refused");
	CHECK(parse(&c, "timeout = 12abc\n", err), "trailing garbage refused");
	CHECK(parse(&c, "colour = blue\n", err) && strstr(err, "unknown"),
	      "unknown setting refused");
	CHECK(parse(&c, "cert\n", err) && strstr(err, "name = value"),
	      "line without = refused");
	CHECK(parse(&c, "ca =\n", err), "empty path refused");
	CHECK(hsd_conf_load(&c, "/nonexistent/q.conf", 1, err, 128) == 0,
	      "missing default file is fine");
	CHECK(hsd_conf_load(&c, "/nonexistent/q.conf", 0, err, 128) != 0,
	      "missing named file is an error");

	n = hsd_psk_parse("# keys\nalice:00ff10\n\n  bob:ABCDEF01  \n", psk, 4, &bad);
	CHECK(n == 2 && !strcmp(psk[0].identity, "alice") && psk[0].key_len == 3 &&
	      psk[0].key[1] == 0xff && !strcmp(psk[1].identity, "bob") &&
	      psk[1].key[0] == 0xab && psk[1].key_len == 4 && psk[0].serial == 0,
	      "PSK file: identities and keys");
	CHECK(hsd_psk_parse("a:0\n", psk, 4, &bad) < 0 && bad == 1, "odd hex length refused");
	CHECK(hsd_psk_parse("ok:00\nb:zz\n", psk, 4, &bad) < 0 && bad == 2,
	      "bad hex refused, line named");
	CHECK(hsd_psk_parse(":00\n", psk, 4, &bad) < 0, "empty identity refused");
	CHECK(hsd_psk_parse("nokey\n", psk, 4, &bad) < 0, "line without key refused");
	CHECK(hsd_psk_parse("a:00\nb:00\nc:00\n", psk, 2, &bad) < 0 && bad == 3,
	      "more entries than room refused");

	CHECK(!strcmp(hsd_desc_field("user;0;0;3f010000;alice") ?: "", "alice"),
	      "key description: the identity field");
	CHECK(!strcmp(hsd_desc_field("psk;0;0;3f010000;id;with;semis") ?: "",
		      "id;with;semis"), "key description: semicolons in the identity");
	CHECK(hsd_desc_field("user;0;0") == NULL, "short description refused");
	return tap_end();
}
