// SPDX-License-Identifier: GPL-2.0-or-later

// Command quicgo-client is an hq-interop (and HTTP/3) client on quic-go,
// a QUIC stack other than our kernel's, for tests/interop.  It has the
// command line of the other interop peers:
//
//	quicgo-client client [--ca FILE | --insecure] [--sni NAME] --out DIR
//	              [--alpn hq-interop|h3] [--idle-timeout SECONDS] URL...
//
// It opens one connection to the host and port of the URLs and fetches
// them all at once, one bidirectional stream each.  hq-interop: it sends
// "GET /path\r\n" with FIN and saves what comes back, up to FIN, as
// DIR/<last component of the path> ("index.html" for "/").  h3: a GET
// through quic-go's http3 package; anything but status 200 fails.
//
// The exit status is 0 only if every file arrived whole; a stream reset,
// a bad status or a connection error fails the file, and the error as
// quic-go words it (KEY_UPDATE_ERROR, IdleTimeoutError, a certificate
// error, ...) goes to stderr.  The last line on stdout sums it up:
// "quic-go client: N/M files, B bytes in T s (R MB/s)".
//
// quic-go runs at its default settings, key updates included (it starts
// one about every 100 packets, which is what this client is for), apart
// from the trusted roots, the ALPN, a 30 s idle timeout and larger flow
// control windows.  It counts the key updates through quic-go's qlog
// events (KeyUpdated; the count of our 1-RTT key phases, split into those
// quic-go started and those the server started) and prints them on
// stderr; with QLOGDIR set, quic-go also writes its qlog there.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/quic-go/qlog"
	"github.com/quic-go/quic-go/qlogwriter"
)

const (
	alpnHQ = "hq-interop"
	alpnH3 = "h3"
)

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "quicgo: "+format+"\n", a...)
}

// result of one URL
type result struct {
	path  string // as requested, with the query
	name  string // file name under --out
	bytes int64
	err   error // nil: whole
}

func main() {
	if len(os.Args) < 2 || os.Args[1] != "client" {
		fmt.Fprintln(os.Stderr, "usage: quicgo-client client [--ca FILE | --insecure] [--sni NAME] --out DIR [--alpn hq-interop|h3] URL...")
		os.Exit(2)
	}
	os.Exit(client(os.Args[2:]))
}

func client(args []string) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	ca := fs.String("ca", "", "trust only this CA (PEM)")
	insecure := fs.Bool("insecure", false, "check no certificate")
	sni := fs.String("sni", "", "server name to send and check (default: the URL's host)")
	out := fs.String("out", ".", "directory to save the files in")
	alpn := fs.String("alpn", alpnHQ, "hq-interop or h3")
	idle := fs.Float64("idle-timeout", 30, "idle timeout, seconds")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || (*ca != "" && *insecure) ||
		(*alpn != alpnHQ && *alpn != alpnH3) {
		logf("usage: client [--ca FILE | --insecure] --out DIR [--alpn hq-interop|h3] URL...")
		return 2
	}

	var urls []*url.URL
	for _, s := range fs.Args() {
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			logf("not an https:// URL: %s", s)
			return 2
		}
		if len(urls) > 0 && u.Host != urls[0].Host {
			logf("URLs must all have the same host and port: %s", s)
			return 2
		}
		urls = append(urls, u)
	}
	port := urls[0].Port()
	if port == "" {
		port = "443"
	}
	addr := net.JoinHostPort(urls[0].Hostname(), port)

	tlsConf := &tls.Config{
		ServerName: urls[0].Hostname(),
		NextProtos: []string{*alpn},
	}
	if *sni != "" {
		tlsConf.ServerName = *sni
	}
	if *insecure {
		tlsConf.InsecureSkipVerify = true
	} else if *ca != "" {
		pem, err := os.ReadFile(*ca)
		if err != nil {
			logf("%v", err)
			return 2
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			logf("no certificate in %s", *ca)
			return 2
		}
		tlsConf.RootCAs = pool
	}
	ku := &keyUpdates{}
	qConf := &quic.Config{
		HandshakeIdleTimeout:           10 * time.Second,
		MaxIdleTimeout:                 time.Duration(*idle * float64(time.Second)),
		InitialStreamReceiveWindow:     8 << 20,
		MaxStreamReceiveWindow:         32 << 20,
		InitialConnectionReceiveWindow: 16 << 20,
		MaxConnectionReceiveWindow:     64 << 20,
		Tracer:                         ku.tracer,
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		logf("%v", err)
		return 2
	}

	t0 := time.Now()
	ctx := context.Background()
	conn, err := quic.DialAddr(ctx, addr, tlsConf, qConf)
	if err != nil {
		logf("handshake with %s failed: %v", addr, err)
		fmt.Printf("quic-go client: 0/%d files, 0 bytes in %.3f s (no connection)\n",
			len(urls), time.Since(t0).Seconds())
		return 1
	}
	st := conn.ConnectionState()
	logf("connected to %s, ALPN %s, TLS cipher %s", addr, st.TLS.NegotiatedProtocol,
		tls.CipherSuiteName(st.TLS.CipherSuite))

	var h3 *http3.ClientConn
	if *alpn == alpnH3 {
		h3 = (&http3.Transport{TLSClientConfig: tlsConf, QUICConfig: qConf}).NewClientConn(conn)
	}
	results := make([]result, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		p := u.EscapedPath()
		if p == "" {
			p = "/"
		}
		if u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
		name := path.Base(u.Path)
		if u.Path == "" || u.Path[len(u.Path)-1] == '/' {
			name = "index.html"
		}
		results[i] = result{path: p, name: name}
		wg.Add(1)
		go func(r *result, u *url.URL) {
			defer wg.Done()
			if h3 != nil {
				r.bytes, r.err = fetchH3(ctx, h3, u, filepath.Join(*out, r.name))
			} else {
				r.bytes, r.err = fetchHQ(ctx, conn, r.path, filepath.Join(*out, r.name))
			}
		}(&results[i], u)
	}
	wg.Wait()
	dt := time.Since(t0).Seconds()

	ok, total := 0, int64(0)
	for _, r := range results {
		total += r.bytes
		if r.err == nil {
			ok++
		} else {
			logf("%s: failed after %d bytes: %v", r.path, r.bytes, r.err)
		}
	}
	// the connection's own error, if it died (say KEY_UPDATE_ERROR); a
	// failed file may tell of it a moment before the connection's end
	wait := time.Duration(0)
	if ok != len(urls) {
		wait = 200 * time.Millisecond
	}
	select {
	case <-conn.Context().Done():
		if cause := context.Cause(conn.Context()); cause != nil {
			logf("connection closed: %v", cause)
		}
	case <-time.After(wait):
	}
	logf("key updates: %s", ku)
	cs := conn.ConnectionStats()
	logf("packets sent %d, received %d, lost %d; smoothed RTT %v",
		cs.PacketsSent, cs.PacketsReceived, cs.PacketsLost, cs.SmoothedRTT)
	conn.CloseWithError(0, "")
	rate := 0.0
	if dt > 0 {
		rate = float64(total) / dt / 1e6
	}
	fmt.Printf("quic-go client: %d/%d files, %d bytes in %.3f s (%.1f MB/s)\n",
		ok, len(urls), total, dt, rate)
	if ok != len(urls) {
		return 1
	}
	return 0
}

// fetchHQ: one hq-interop request on a new stream, the answer into file.
func fetchHQ(ctx context.Context, conn *quic.Conn, p, file string) (int64, error) {
	s, err := conn.OpenStreamSync(ctx)
	if err != nil {
		return 0, fmt.Errorf("opening a stream: %w", err)
	}
	if _, err := s.Write([]byte("GET " + p + "\r\n")); err != nil {
		s.CancelRead(0)
		return 0, fmt.Errorf("sending the request: %w", err)
	}
	if err := s.Close(); err != nil { // FIN on our side
		s.CancelRead(0)
		return 0, fmt.Errorf("closing the request: %w", err)
	}
	return save(s, file)
}

// fetchH3: one GET over HTTP/3, the body into file.
func fetchH3(ctx context.Context, h3 *http3.ClientConn, u *url.URL, file string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	resp, err := h3.RoundTrip(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP status %d", resp.StatusCode)
	}
	return save(resp.Body, file)
}

// save copies r into file until EOF (the peer's FIN); any other end,
// a reset or the connection's death, is an error.
func save(r io.Reader, file string) (int64, error) {
	f, err := os.Create(file)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	var se *quic.StreamError
	if errors.As(err, &se) {
		err = fmt.Errorf("stream reset by the server: %w", err)
	}
	return n, err
}

// keyUpdates counts 1-RTT key updates from quic-go's qlog events, and
// passes every event on to quic-go's own qlog writer when QLOGDIR is set.
type keyUpdates struct {
	mu            sync.Mutex
	local, remote int
	phase         uint64
	next          qlogwriter.Recorder // QLOGDIR's, or nil
	producers     int
}

func (k *keyUpdates) String() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return fmt.Sprintf("%d (%d started by quic-go, %d by the server), key phase now %d",
		k.local+k.remote, k.local, k.remote, k.phase)
}

func (k *keyUpdates) tracer(ctx context.Context, isClient bool, id quic.ConnectionID) qlogwriter.Trace {
	if t := qlog.DefaultConnectionTracer(ctx, isClient, id); t != nil {
		k.next = t.AddProducer()
	}
	return k
}

// AddProducer: one recorder, this, for every producer; quic-go's own
// writer is closed when the last one is.
func (k *keyUpdates) AddProducer() qlogwriter.Recorder {
	k.mu.Lock()
	k.producers++
	k.mu.Unlock()
	return k
}

func (k *keyUpdates) RecordEvent(ev qlogwriter.Event) {
	// an update changes both directions' secrets: count the client's
	if e, ok := ev.(qlog.KeyUpdated); ok && e.KeyType == qlog.KeyTypeClient1RTT {
		k.mu.Lock()
		switch e.Trigger {
		case qlog.KeyUpdateLocal:
			k.local++
		case qlog.KeyUpdateRemote:
			k.remote++
		}
		k.phase = uint64(e.KeyPhase)
		k.mu.Unlock()
	}
	if k.next != nil {
		k.next.RecordEvent(ev)
	}
}

func (k *keyUpdates) Close() error {
	k.mu.Lock()
	k.producers--
	last := k.producers == 0
	k.mu.Unlock()
	if last && k.next != nil {
		return k.next.Close()
	}
	return nil
}
