/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TESTS_UNIT_SUITES_H
#define _TESTS_UNIT_SUITES_H

void varint_tests(void);
void header_tests(void);
void frame_tests(void);
void tp_tests(void);
void ack_ranges_tests(void);
void flow_tests(void);
void key_phase_tests(void);
void reasm_tests(void);
void tls_hello_tests(void);
void token_tests(void);
void gso_tests(void);

#endif
