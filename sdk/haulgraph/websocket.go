package haulgraph

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// A WebSocket client (RFC 6455), as much as graphql-transport-ws needs:
// text messages, ping, close codes. Written here so that the SDK needs no
// module beyond the standard library.

// maxWSMessage bounds one message (an event is a few kilobytes).
const maxWSMessage = 16 << 20

// wsCloseError is the close frame that ended a connection.
type wsCloseError struct {
	Code   int
	Reason string
}

func (e *wsCloseError) Error() string {
	return fmt.Sprintf("websocket closed: %d %s", e.Code, e.Reason)
}

type wsConn struct {
	conn net.Conn
	r    *bufio.Reader
}

// dialWS opens a WebSocket to u (ws or wss) offering protocol, through
// the HTTP client's proxy and TLS settings when it has them. An answer
// other than 101 is returned with its body for the caller to read.
func dialWS(ctx context.Context, hc *http.Client, u *url.URL, protocol string, header http.Header) (*wsConn, *http.Response, error) {
	var tlsConf *tls.Config
	proxy := http.ProxyFromEnvironment
	if tr, ok := hc.Transport.(*http.Transport); ok {
		tlsConf, proxy = tr.TLSClientConfig, tr.Proxy
	}
	secure := u.Scheme == "wss"
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[bool]string{true: "443", false: "80"}[secure])
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // the handshake
	defer cancel()
	var d net.Dialer
	target := host
	var proxyURL *url.URL
	if proxy != nil {
		httpURL := *u
		httpURL.Scheme = map[bool]string{true: "https", false: "http"}[secure]
		if p, err := proxy(&http.Request{URL: &httpURL}); err == nil && p != nil {
			proxyURL = p
			target = p.Host
			if p.Port() == "" {
				target = net.JoinHostPort(p.Hostname(), "80")
			}
		}
	}
	conn, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	fail := func(err error) (*wsConn, *http.Response, error) {
		conn.Close()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, nil, err
	}
	br := bufio.NewReader(conn)
	if proxyURL != nil {
		connect := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: host}, Host: host, Header: http.Header{}}
		if pu := proxyURL.User; pu != nil {
			pass, _ := pu.Password()
			connect.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(pu.Username()+":"+pass)))
		}
		if err := connect.Write(conn); err != nil {
			return fail(err)
		}
		res, err := http.ReadResponse(br, connect)
		if err != nil {
			return fail(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fail(fmt.Errorf("proxy refused CONNECT: %s", res.Status))
		}
	}
	if secure {
		cfg := &tls.Config{}
		if tlsConf != nil {
			cfg = tlsConf.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		cfg.NextProtos = nil // HTTP/1.1 only: the upgrade needs it
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fail(err)
		}
		conn, br = tc, bufio.NewReader(tc)
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return fail(err)
	}
	key := base64.StdEncoding.EncodeToString(nonce)
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: u.Path, RawQuery: u.RawQuery}, Host: u.Host, Header: header.Clone()}
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", key)
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Protocol", protocol)
	if err := req.Write(conn); err != nil {
		return fail(err)
	}
	res, err := http.ReadResponse(br, req)
	if err != nil {
		return fail(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		// The refusal's body is read by the caller; the connection goes
		// with it.
		res.Body = &closeBoth{ReadCloser: res.Body, conn: conn}
		return nil, res, fmt.Errorf("websocket handshake refused: %s", res.Status)
	}
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if res.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) ||
		!strings.EqualFold(res.Header.Get("Upgrade"), "websocket") || res.Header.Get("Sec-WebSocket-Protocol") != protocol {
		return fail(errors.New("websocket handshake: the server did not accept the upgrade or the protocol"))
	}
	if !stop() {
		return fail(ctx.Err())
	}
	conn.SetDeadline(time.Time{})
	return &wsConn{conn: conn, r: br}, nil, nil
}

type closeBoth struct {
	io.ReadCloser
	conn net.Conn
}

func (c *closeBoth) Close() error { c.ReadCloser.Close(); return c.conn.Close() }

const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xa
)

// write sends one frame, masked as a client's must be.
func (c *wsConn) write(op byte, payload []byte) error {
	hdr := make([]byte, 2, 14)
	hdr[0] = 0x80 | op
	switch n := len(payload); {
	case n < 126:
		hdr[1] = 0x80 | byte(n)
	case n <= 0xffff:
		hdr[1] = 0x80 | 126
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(n))
	default:
		hdr[1] = 0x80 | 127
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	if _, err := rand.Read(mask[:]); err != nil {
		return err
	}
	hdr = append(hdr, mask[:]...)
	frame := append(hdr, payload...)
	for i := range payload {
		frame[len(hdr)+i] ^= mask[i%4]
	}
	_, err := c.conn.Write(frame)
	return err
}

// readMessage returns the next text or binary message, answering pings on
// the way; a close frame ends it with a *wsCloseError.
func (c *wsConn) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(c.r, h[:]); err != nil {
			return nil, err
		}
		fin, op, masked := h[0]&0x80 != 0, h[0]&0x0f, h[1]&0x80 != 0
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(c.r, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(c.r, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > maxWSMessage || uint64(len(msg))+n > maxWSMessage {
			return nil, errors.New("websocket: message too large")
		}
		var mask [4]byte
		if masked {
			if _, err := io.ReadFull(c.r, mask[:]); err != nil {
				return nil, err
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(c.r, payload); err != nil {
			return nil, err
		}
		if masked {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch op {
		case opPing:
			if err := c.write(opPong, payload); err != nil {
				return nil, err
			}
		case opPong:
		case opClose:
			e := &wsCloseError{Code: 1005}
			if len(payload) >= 2 {
				e.Code, e.Reason = int(binary.BigEndian.Uint16(payload)), string(payload[2:])
			}
			_ = c.write(opClose, payload[:min(len(payload), 2)])
			return nil, e
		case opText, opBinary, opContinuation:
			msg = append(msg, payload...)
			if fin {
				return msg, nil
			}
		default:
			return nil, fmt.Errorf("websocket: unknown opcode %d", op)
		}
	}
}

func (c *wsConn) Close() error { return c.conn.Close() }
