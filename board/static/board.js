// HaulGraph dispatch board: loads through GraphQL over HTTP, live changes
// through the loadChanged subscription over graphql-transport-ws. No
// framework, no build step; the token lives in this module's memory only.

const AUDIENCE = "https://api.haulgraph.local";
const PAGE = 50;
const STATUSES = ["Open", "Quoted", "Reserved", "Covered", "Dispatched", "InTransit", "Delivered", "Cancelled", "TONU"];
const rank = Object.fromEntries(STATUSES.map((s, i) => [s, i]));

const $ = (id) => document.getElementById(id);

const state = {
  token: null,
  withDrivers: false,
  loads: new Map(),          // loadNumber → load
  subsidiaries: new Map(),   // id → name
  cursor: null,              // the list's endCursor
  hasMore: false,
  total: 0,
  lastEvent: null,           // resume position of the subscription
  resume: null,              // {arg, field} when the server can resume, else null
  socket: null,
  generation: 0,             // bumps on sign-out and filter changes
};

// ---------- GraphQL over HTTP ----------

async function gql(query, variables) {
  const res = await fetch("/graphql", {
    method: "POST", credentials: "omit", // a 401's WWW-Authenticate must never open the browser's password dialog
    headers: { "Content-Type": "application/json", "Accept": "application/json", "Authorization": "Bearer " + state.token },
    body: JSON.stringify({ query, variables }),
  });
  let body;
  try { body = await res.json(); } catch { throw new Error("the server answered " + res.status); }
  if (res.status === 401 || body.errors?.some((e) => e.extensions?.code === "UNAUTHENTICATED")) {
    signOut("Your token was refused or has expired: sign in again.");
    throw new Error("unauthenticated");
  }
  if (!body.data) throw new Error(body.errors?.[0]?.message || "the server answered " + res.status);
  if (body.errors?.length) throw new Error(body.errors[0].message);
  return body.data;
}

function loadFields() {
  return `loadNumber status subsidiaryId subsidiaryName customerId customerName updatedAt
    stops { sequence type name address { city state } appointmentStart appointmentEnd }
    trips { tripNumber status driverIds ${state.withDrivers ? "drivers { name }" : ""} }`;
}

// Does the server resume subscriptions (loadChanged(after:) and a cursor on
// the event)? Asked once per sign-in.
async function detectResume() {
  const data = await gql(`{ s: __type(name: "Subscription") { fields { name args { name } } }
    e: __type(name: "LoadEvent") { fields { name } } }`);
  const field = data.s?.fields?.find((f) => f.name === "loadChanged");
  const hasAfter = field?.args?.some((a) => a.name === "after");
  // The event's cursor when it has one, else its id (after takes either).
  const cursor = data.e?.fields?.some((f) => f.name === "cursor") ? "cursor" : "id";
  return hasAfter ? { arg: "after", field: cursor } : null;
}

// ---------- the table ----------

function filters() {
  return { status: $("status-filter").value, subsidiary: $("subsidiary-filter").value };
}

function matches(load) {
  const f = filters();
  return (!f.status || load.status === f.status) && (!f.subsidiary || load.subsidiaryId === f.subsidiary);
}

const dayFmt = new Intl.DateTimeFormat("en", { month: "short", day: "numeric", timeZone: "UTC" });
const hourFmt = new Intl.DateTimeFormat("en", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: "UTC" });

// appointment renders a window as "Mar 20 15:00–17:00 UTC" (the end's day
// only when it differs).
function appointment(start, end) {
  const s = start && new Date(start), e = end && new Date(end);
  const part = (d, withDay) => (withDay ? dayFmt.format(d) + " " : "") + hourFmt.format(d);
  if (s && e) return part(s, true) + "–" + part(e, dayFmt.format(s) !== dayFmt.format(e)) + " UTC";
  return part(s || e, true) + " UTC";
}

function stopCell(td, stops, type) {
  const list = stops.filter((s) => s.type === type);
  if (!list.length) { td.textContent = "—"; return; }
  for (const s of list) {
    const div = document.createElement("div");
    const place = [s.name, [s.address?.city, s.address?.state].filter(Boolean).join(", ")].filter(Boolean).join(" — ");
    div.append(place);
    if (s.appointmentStart || s.appointmentEnd) {
      const small = document.createElement("small");
      small.textContent = "Appt " + appointment(s.appointmentStart, s.appointmentEnd);
      div.append(small);
    }
    td.append(div);
  }
}

function renderRow(load) {
  const tr = document.createElement("tr");
  tr.load = load;
  tr.dataset.load = load.loadNumber;
  tr.dataset.status = load.status;
  tr.id = "load-" + load.loadNumber;
  // Each cell holds one wrapper: at phone width a cell is a grid of its
  // label and this wrapper.
  const cell = (label) => {
    const td = document.createElement("td");
    td.dataset.label = label;
    const div = document.createElement("div");
    td.append(div);
    tr.append(td);
    return div;
  };
  const th = document.createElement("th");
  th.scope = "row";
  th.dataset.label = "Load";
  th.textContent = load.loadNumber;
  tr.append(th);
  const st = document.createElement("span");
  st.className = "status";
  st.dataset.status = load.status;
  st.textContent = load.status;
  cell("Status").append(st);
  const cust = cell("Customer");
  cust.textContent = load.customerName || "—";
  const sub = document.createElement("small");
  sub.textContent = load.subsidiaryName;
  cust.append(sub);
  stopCell(cell("Pickup"), load.stops || [], "Pickup");
  stopCell(cell("Delivery"), load.stops || [], "Delivery");
  const trips = cell("Trips and drivers");
  if (!load.trips?.length) trips.textContent = "—";
  for (const t of load.trips || []) {
    const div = document.createElement("div");
    const names = t.drivers ? t.drivers.map((d) => d.name) : t.driverIds.map((id) => id.slice(0, 8));
    div.textContent = t.tripNumber + " (" + t.status + ")" + (names.length ? ": " + names.join(", ") : ": no driver");
    trips.append(div);
  }
  return tr;
}

function order(a, b) {
  return (rank[a.status] ?? 99) - (rank[b.status] ?? 99) || (a.loadNumber < b.loadNumber ? 1 : a.loadNumber > b.loadNumber ? -1 : 0);
}

// render puts the rows in board order (status, then newest load), keeping
// the existing row elements so that focus and highlights survive.
function render(changed) {
  const tbody = $("loads").tBodies[0];
  const rows = [...state.loads.values()].filter(matches).sort(order);
  const existing = new Map([...tbody.rows].map((tr) => [tr.dataset.load, tr]));
  let prev = null;
  for (const load of rows) {
    let tr = existing.get(load.loadNumber);
    const isNew = tr?.load !== load;
    const differs = changed?.has(load.loadNumber) || (tr && tr.load.updatedAt !== load.updatedAt);
    if (!tr || isNew) {
      const fresh = renderRow(load);
      if (tr) tr.replaceWith(fresh);
      tr = fresh;
    }
    existing.delete(load.loadNumber);
    const want = prev ? prev.nextSibling : tbody.firstChild;
    if (want !== tr) tbody.insertBefore(tr, want);
    if (differs) flash(tr);
    prev = tr;
  }
  for (const tr of existing.values()) tr.remove();
  $("count").textContent = "(" + rows.length + " shown" + (state.hasMore ? " of " + state.total : "") + ")";
  $("more").hidden = !state.hasMore;
  renderSubsidiaries();
}

function flash(tr) {
  tr.classList.remove("changed");
  void tr.offsetWidth; // restart the animation
  tr.classList.add("changed");
  setTimeout(() => tr.classList.remove("changed"), 2000);
}

function renderSubsidiaries() {
  const sel = $("subsidiary-filter");
  for (const [id, name] of state.subsidiaries) {
    if (![...sel.options].some((o) => o.value === id)) sel.add(new Option(name || id, id));
  }
}

function remember(load, live) {
  const old = state.loads.get(load.loadNumber);
  if (old && old.updatedAt > load.updatedAt) return false; // an older snapshot
  if (live && !old && matches(load)) state.total++;
  state.loads.set(load.loadNumber, load);
  state.subsidiaries.set(load.subsidiaryId, load.subsidiaryName);
  return true;
}

// ---------- paging ----------

async function readPage(reset) {
  const gen = state.generation;
  const f = filters();
  const filter = {};
  if (f.status) filter.statuses = [f.status];
  if (f.subsidiary) filter.subsidiaryId = f.subsidiary;
  const data = await gql(`query Board($filter: LoadFilter, $first: Int, $after: String) {
    loads(filter: $filter, first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } items { ${loadFields()} } } }`,
  { filter, first: PAGE, after: reset ? null : state.cursor });
  if (gen !== state.generation) return;
  if (reset) state.loads.clear();
  for (const l of data.loads.items) remember(l);
  state.cursor = data.loads.pageInfo.endCursor;
  state.hasMore = data.loads.pageInfo.hasNextPage;
  state.total = data.loads.totalCount;
  render();
}

// ---------- graphql-transport-ws ----------

function setConn(s, text) {
  const el = $("conn");
  el.dataset.state = s;
  el.textContent = text;
}

let retry = 0;
let retryTimer = null;

function connect() {
  const gen = state.generation;
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/graphql";
  const ws = new WebSocket(url, "graphql-transport-ws");
  state.socket = ws;
  setConn(retry ? "reconnecting" : "connecting", retry ? "Reconnecting…" : "Connecting…");
  ws.onopen = () => ws.send(JSON.stringify({ type: "connection_init", payload: { Authorization: "Bearer " + state.token } }));
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    switch (msg.type) {
      case "connection_ack": onAck(ws, gen); break;
      case "ping": ws.send(JSON.stringify({ type: "pong" })); break;
      case "next": onEvent(msg.payload); break;
      case "error":
        if (msg.payload?.[0]?.extensions?.code === "CURSOR_EXPIRED") {
          // Too far behind to resume: start afresh (the page is read again).
          state.lastEvent = null;
        } else {
          $("board-error").textContent = "Live updates refused: " + (msg.payload?.[0]?.message || "error");
        }
        ws.close(4000, "subscription error");
        break;
      case "complete": ws.close(1000, "completed"); break;
    }
  };
  ws.onclose = (ev) => {
    if (state.socket !== ws) return;
    state.socket = null;
    if (gen !== state.generation || !state.token) return;
    if (ev.code === 4401 || ev.code === 4403) { signOut("Live updates refused: sign in again."); return; }
    retry++;
    const delay = Math.min(10000, 250 * 2 ** Math.min(retry, 6)) * (0.75 + Math.random() / 2);
    setConn("reconnecting", "Reconnecting…");
    retryTimer = setTimeout(connect, delay);
  };
}

async function onAck(ws, gen) {
  const args = ["$filter: LoadEventFilter"];
  const call = ["filter: $filter"];
  const variables = { filter: {} };
  if (state.resume && state.lastEvent) {
    args.push("$after: String");
    call.push(state.resume.arg + ": $after");
    variables.after = state.lastEvent;
  }
  const cursor = state.resume ? state.resume.field : "";
  ws.send(JSON.stringify({ id: "board", type: "subscribe", payload: {
    query: `subscription Board(${args.join(", ")}) { loadChanged(${call.join(", ")}) { id ${cursor} data { load { ${loadFields()} } } } }`,
    variables,
  } }));
  const resumed = Boolean(variables.after);
  const wasRetry = retry > 0;
  retry = 0;
  setConn("live", "Live");
  // Without a resume position, changes made while disconnected are read
  // back by reading the page again (events arriving meanwhile still apply:
  // the newer snapshot wins).
  if (wasRetry && !resumed) {
    try { await readPage(true); } catch (e) { if (gen === state.generation) $("board-error").textContent = e.message; }
  }
}

function onEvent(payload) {
  const ev = payload?.data?.loadChanged;
  if (!ev) return;
  if (state.resume) state.lastEvent = ev[state.resume.field] ?? state.lastEvent;
  const load = ev.data.load;
  const old = state.loads.get(load.loadNumber);
  // Event snapshots follow the webhook contract, which has no customer name:
  // keep the name the row has while the customer is the same, else read it.
  if (load.customerName == null && load.customerId != null) {
    if (old?.customerId === load.customerId && old.customerName != null) load.customerName = old.customerName;
    else customerNameOf(load);
  }
  if (remember(load, true)) render(new Set([load.loadNumber]));
}

// customerNameOf reads the name of a load's (new) customer and shows it
// unless a newer snapshot has replaced the load meanwhile.
async function customerNameOf(load) {
  const gen = state.generation;
  let data;
  try {
    data = await gql(`query BoardCustomer($n: String!) { load(loadNumber: $n) { customerId customerName } }`, { n: load.loadNumber });
  } catch (e) {
    if (gen === state.generation) $("board-error").textContent = e.message;
    return;
  }
  if (gen !== state.generation || state.loads.get(load.loadNumber) !== load || data.load?.customerId !== load.customerId) return;
  state.loads.set(load.loadNumber, { ...load, customerName: data.load.customerName });
  render();
}

// ---------- sign-in ----------

function scopesOf(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return (JSON.parse(atob(part)).scope || "").split(" ");
  } catch { return []; }
}

async function start(token) {
  state.token = token;
  state.withDrivers = scopesOf(token).includes("driver:read");
  state.generation++;
  $("signin-error").textContent = "";
  $("board-error").textContent = "";
  try {
    state.resume = await detectResume();
    await readPage(true);
  } catch (e) {
    if (state.token) signOut(e.message === "unauthenticated" ? "The token was refused." : e.message);
    return;
  }
  $("signin").hidden = true;
  $("board").hidden = false;
  $("status-filter").focus();
  connect();
}

function signOut(message) {
  state.token = null;
  state.generation++;
  clearTimeout(retryTimer);
  retry = 0;
  if (state.socket) { const ws = state.socket; state.socket = null; ws.close(1000, "signed out"); }
  state.loads.clear();
  state.lastEvent = null;
  $("loads").tBodies[0].replaceChildren();
  $("board").hidden = true;
  $("signin").hidden = false;
  $("client-secret").value = "";
  $("token").value = "";
  $("signin-error").textContent = message || "";
  setConn("signed-out", "Signed out");
}

async function signInWithCredentials(ev) {
  ev.preventDefault();
  const body = new URLSearchParams({
    grant_type: "client_credentials", client_id: $("client-id").value.trim(),
    client_secret: $("client-secret").value, audience: AUDIENCE,
  });
  $("signin-error").textContent = "";
  try {
    const res = await fetch("/oauth/token", { method: "POST", body, credentials: "omit" });
    const json = await res.json();
    if (!res.ok) throw new Error(json.error_description || json.error || "sign-in failed (" + res.status + ")");
    $("client-secret").value = "";
    await start(json.access_token);
  } catch (e) {
    $("signin-error").textContent = e.message;
  }
}

function init() {
  for (const s of STATUSES) $("status-filter").add(new Option(s, s));
  $("credentials-form").addEventListener("submit", signInWithCredentials);
  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    start($("token").value.trim().replace(/^Bearer\s+/i, ""));
  });
  $("signout").addEventListener("click", () => signOut());
  $("more").addEventListener("click", () => readPage(false).catch((e) => { $("board-error").textContent = e.message; }));
  $("filters").addEventListener("change", () => {
    state.cursor = null;
    readPage(true).catch((e) => { $("board-error").textContent = e.message; });
  });
}

init();
