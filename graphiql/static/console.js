// HaulGraph's GraphiQL: a sign-in bar that gets a token (client credentials
// through /oauth/token, or a pasted one) and a fetcher that sends it, over
// HTTP for queries and mutations and in connection_init for subscriptions
// (graphql-transport-ws). The token lives in this script's memory only, and
// GraphiQL's own storage is an in-memory one: nothing survives the tab.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const AUDIENCE = document.body.dataset.audience;
  let token = "";

  function show(state, text) {
    $("who").dataset.state = state;
    $("who").textContent = text;
    $("sign-out").hidden = state !== "signed-in";
  }

  async function signInWithCredentials(ev) {
    ev.preventDefault();
    const body = new URLSearchParams({
      grant_type: "client_credentials", client_id: $("client-id").value.trim(),
      client_secret: $("client-secret").value, audience: AUDIENCE,
    });
    try {
      const res = await fetch("/oauth/token", { method: "POST", body, credentials: "omit" });
      const answer = await res.json();
      if (!res.ok) {
        show("error", answer.error_description || answer.error || "sign-in failed (" + res.status + ")");
        return;
      }
      token = answer.access_token;
      show("signed-in", "signed in: " + (answer.scope || ""));
      mount();
    } catch (e) {
      show("error", "sign-in failed: " + e.message);
    }
  }

  function usePastedToken(ev) {
    ev.preventDefault();
    token = $("pasted-token").value.trim();
    $("pasted-token").value = "";
    show(token ? "signed-in" : "signed-out", token ? "signed in with a pasted token" : "not signed in");
    if (token) mount();
  }

  function signOut() {
    token = "";
    show("signed-out", "not signed in");
  }

  function headers(extra) {
    const h = { "Content-Type": "application/json", "Accept": "application/graphql-response+json, application/json" };
    if (token) h.Authorization = "Bearer " + token;
    return Object.assign(h, extra || {});
  }

  // isSubscription: is the operation GraphiQL runs a subscription? The named
  // one, else the document's first operation.
  function isSubscription(params) {
    const doc = (params.query || "").replace(/#[^\n]*/g, "");
    const ops = [...doc.matchAll(/(^|})\s*(query|mutation|subscription)\b\s*([A-Za-z_][A-Za-z0-9_]*)?/g)];
    const op = params.operationName ? ops.find((m) => m[3] === params.operationName) : ops[0];
    return !!op && op[2] === "subscription";
  }

  // subscribe runs one subscription on its own WebSocket and yields each
  // result; GraphiQL's stop button calls return(), which completes it.
  function subscribe(params) {
    const url = location.origin.replace(/^http/, "ws") + "/graphql";
    const queue = [];
    let wake = null, done = false;
    const push = (item) => { queue.push(item); if (wake) { wake(); wake = null; } };
    const ws = new WebSocket(url, "graphql-transport-ws");
    ws.onopen = () => ws.send(JSON.stringify({ type: "connection_init", payload: token ? { Authorization: "Bearer " + token } : {} }));
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "connection_ack") {
        ws.send(JSON.stringify({ id: "1", type: "subscribe", payload: params }));
      } else if (msg.type === "ping") {
        ws.send(JSON.stringify({ type: "pong" }));
      } else if (msg.type === "next") {
        push({ value: msg.payload });
      } else if (msg.type === "error") {
        push({ value: { errors: msg.payload } });
        push({ end: true });
      } else if (msg.type === "complete") {
        push({ end: true });
      }
    };
    ws.onclose = (ev) => {
      if (ev.code !== 1000) push({ value: { errors: [{ message: "connection closed (" + ev.code + (ev.reason ? ": " + ev.reason : "") + ")" }] } });
      push({ end: true });
    };
    const stop = () => {
      done = true;
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ id: "1", type: "complete" }));
      ws.close(1000);
    };
    return {
      [Symbol.asyncIterator]() { return this; },
      async next() {
        while (!done) {
          const item = queue.shift();
          if (item && item.end) break;
          if (item) return { value: item.value, done: false };
          await new Promise((r) => { wake = r; });
        }
        stop();
        return { value: undefined, done: true };
      },
      async return() { stop(); return { value: undefined, done: true }; },
    };
  }

  async function fetcher(params, opts) {
    if (isSubscription(params)) return subscribe(params);
    const res = await fetch("/graphql", {
      method: "POST", credentials: "omit",
      headers: headers(opts && opts.headers), body: JSON.stringify(params),
    });
    return res.json();
  }

  // memoryStorage is GraphiQL's storage: tabs and history for this tab only.
  function memoryStorage() {
    const m = new Map();
    return {
      getItem: (k) => (m.has(k) ? m.get(k) : null),
      setItem: (k, v) => m.set(k, String(v)),
      removeItem: (k) => m.delete(k),
      clear: () => m.clear(),
      key: (i) => [...m.keys()][i] ?? null,
      get length() { return m.size; },
    };
  }

  $("client-id").value = document.body.dataset.clientId || "";
  $("client-secret").value = document.body.dataset.clientSecret || "";
  $("credentials-form").addEventListener("submit", signInWithCredentials);
  $("token-form").addEventListener("submit", usePastedToken);
  $("sign-out").addEventListener("click", signOut);

  const root = ReactDOM.createRoot($("graphiql"));
  const storage = memoryStorage();

  // mount renders GraphiQL with a fresh fetcher: GraphiQL introspects again
  // whenever its fetcher changes, so a sign-in replaces the schema fetch the
  // server refused without a token. Its tabs and editors stay as they are.
  function mount() {
    root.render(React.createElement(GraphiQL, {
      fetcher: (params, opts) => fetcher(params, opts),
      storage,
      defaultQuery: "# Sign in above, then run a query, e.g.\n{\n  trailers(first: 3) {\n    items { trailerNum }\n  }\n}\n",
      shouldPersistHeaders: false,
    }));
  }
  mount();
})();
