// Package admin is the operator's listener (HAULGRAPH_ADMIN_ADDR): metrics,
// pprof, liveness and readiness. It is never mounted on the public
// listener, so profiles and metrics need no authentication of their own
// beyond where the address is reachable from.
package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"time"
)

// ReadyTimeout bounds the database checks of one /readyz.
const ReadyTimeout = 2 * time.Second

// Readiness says whether the instance should receive traffic, and if not,
// why (a short phrase for the operator).
type Readiness func(ctx context.Context) (reason string, ready bool)

// Handler serves /metrics, /debug/pprof/, /healthz (the process answers)
// and /readyz (ready answers 503 with its reason otherwise).
func Handler(metrics http.Handler, ready Readiness) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	// pprof on this mux only: importing net/http/pprof also registers on
	// http.DefaultServeMux, which no listener of this program serves.
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), ReadyTimeout)
		defer cancel()
		if reason, ok := ready(ctx); !ok {
			writeStatus(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": reason})
			return
		}
		writeStatus(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	return mux
}

func writeStatus(w http.ResponseWriter, status int, body map[string]string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
