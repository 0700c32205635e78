package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/haulgraph/haulgraph/apptest"
)

func runCLI(t *testing.T, srv *apptest.Server, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := runClients(context.Background(), srv.Auth, args, &out)
	return out.String(), err
}

func TestClientsCLILifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	apptest.NewTenant(t, srv, "acme")
	expires := time.Now().AddDate(0, 1, 0).Format(time.DateOnly)

	out, err := runCLI(t, srv, "create", "--tenant", "acme", "--name", "BI", "--description", "dashboards",
		"--scopes", "driver:read, invoice:read", "--expires", expires, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ClientID     string    `json:"client_id"`
		ClientSecret string    `json:"client_secret"`
		Scopes       []string  `json:"scopes"`
		ExpiresAt    time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.ClientID == "" || created.ClientSecret == "" {
		t.Fatalf("create --json printed %q (%v)", out, err)
	}
	day, _ := time.Parse(time.DateOnly, expires)
	if strings.Join(created.Scopes, " ") != "driver:read invoice:read" || !created.ExpiresAt.Equal(day.Add(24*time.Hour)) {
		t.Errorf("created %+v", created)
	}
	// The printed credentials work with a real OAuth client.
	tok, err := srv.OAuth(created.ClientID, created.ClientSecret).Token(ctx)
	if err != nil || tok.Extra("scope") != "driver:read invoice:read" {
		t.Fatalf("token: %v %v", tok, err)
	}

	out, err = runCLI(t, srv, "edit", "--tenant", "acme", "--client-id", created.ClientID, "--scopes", "load:read webhook:manage", "--expires", "never", "--json")
	if err != nil || !strings.Contains(out, `"load:read"`) || !strings.Contains(out, `"expires_at": null`) {
		t.Fatalf("edit: %q %v", out, err)
	}

	out, err = runCLI(t, srv, "list", "--tenant", "acme", "--json")
	var list []struct {
		ClientID string   `json:"client_id"`
		Name     string   `json:"name"`
		Status   string   `json:"status"`
		Scopes   []string `json:"scopes"`
		Secret   string   `json:"client_secret"`
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0].Status != "active" ||
		strings.Join(list[0].Scopes, " ") != "load:read webhook:manage" || list[0].Secret != "" || strings.Contains(out, created.ClientSecret) {
		t.Fatalf("list: %q %v", out, err)
	}

	if _, err := runCLI(t, srv, "revoke", "--tenant", "acme", "--client-id", created.ClientID); err != nil {
		t.Fatal(err)
	}
	out, _ = runCLI(t, srv, "list", "--tenant", "acme")
	if !strings.Contains(out, "revoked") {
		t.Errorf("human list after revoke: %q", out)
	}
	_, err = srv.OAuth(created.ClientID, created.ClientSecret).Token(ctx)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_client" {
		t.Errorf("revoked client got a token: %v", err)
	}
}

func TestClientsCLIRefusals(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	apptest.NewTenant(t, srv, "acme")
	for i := range 10 {
		if _, err := runCLI(t, srv, "create", "--tenant", "acme", "--name", "c", "--scopes", "load:read"); err != nil {
			t.Fatalf("client %d: %v", i+1, err)
		}
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"create", "--tenant", "acme", "--name", "eleventh", "--scopes", "load:read"}, "already holds 10 client credential sets"},
		{[]string{"create", "--tenant", "nobody", "--name", "x", "--scopes", "load:read"}, `no tenant with slug "nobody"`},
		{[]string{"create", "--tenant", "acme", "--name", "x", "--scopes", "load:fly"}, `unknown scope "load:fly"`},
		{[]string{"create", "--tenant", "acme", "--name", "x", "--scopes", "load:read", "--expires", "tomorrow"}, "YYYY-MM-DD"},
		{[]string{"revoke", "--tenant", "acme", "--client-id", "hgc_nobody"}, "no active client"},
		{[]string{"list"}, "--tenant is required"},
		{[]string{"fly", "--tenant", "acme"}, "unknown clients command"},
	}
	for _, tc := range cases {
		_, err := runCLI(t, srv, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
