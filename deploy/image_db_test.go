package deploy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// imageDatabase is a database of its own on the tests' PostgreSQL
// (DATABASE_URL: scripts/with-pg.sh's), dropped at the end, reached at a
// TCP address of 127.0.0.1 that forwards to it: the chrooted server sees
// no Unix socket of the host.
func imageDatabase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		t.Fatal("DATABASE_URL is not set: run the tests under scripts/with-pg.sh (make test does)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var suffix [6]byte
	rand.Read(suffix[:])
	name := "image_" + hex.EncodeToString(suffix[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err == nil {
			_, err = conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
			conn.Close(ctx)
		}
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})

	cfg := conn.Config().Config
	network, target := "tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
	if strings.HasPrefix(cfg.Host, "/") {
		network, target = "unix", filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	forward(t, ln, network, target)
	u := url.URL{Scheme: "postgres", User: url.User(cfg.User), Host: ln.Addr().String(), Path: "/" + name, RawQuery: "sslmode=disable"}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	}
	return u.String()
}

// forward copies each connection to ln to and from one to network/target
// until the test ends, which closes them and waits for every copy.
func forward(t *testing.T, ln net.Listener, network, target string) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	stopped := false
	// keep holds c until the end, unless it has come already.
	keep := func(c net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			c.Close()
			return false
		}
		open = append(open, c)
		return true
	}
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		stopped = true
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial(network, target)
			if err != nil {
				c.Close()
				continue
			}
			if !keep(c) || !keep(s) {
				c.Close()
				return
			}
			for _, p := range [][2]net.Conn{{c, s}, {s, c}} {
				wg.Go(func() {
					_, _ = io.Copy(p[0], p[1])
					p[0].Close()
					p[1].Close()
				})
			}
		}
	})
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
