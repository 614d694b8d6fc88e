// SPDX-License-Identifier: GPL-3.0-or-later
// What the hall page and the board page share: times, the socket, the login.
"use strict";
const COLOURS = { xiangqi: ["Red", "Black"], go: ["Black", "White"], chess: ["White", "Black"] };
const boards = new Map(); // key -> {view, at}: key is the board number, or SERVER-NO for another server's: the server's view and when it came (performance.now)

function fmt(ms) {
  const neg = ms < 0; ms = Math.abs(ms);
  const s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
  const pad = (n) => String(n).padStart(2, "0");
  let out = h ? h + ":" + pad(m) + ":" + pad(s % 60) : m + ":" + pad(s % 60);
  if (!h && s < 20) out += "." + Math.floor(ms % 1000 / 100);
  return (neg ? "-" : "") + out;
}

// A side's time now: the clock's figure at its own ms t, less what has run
// since (the server's estimate of the clock's now, then this page's own ticks).
function shownLeft(b, side) {
  const v = b.view;
  let ms = v.left[side];
  if (v.state === "running" && v.run === side && v.link === "up") {
    ms -= Math.max(0, v.now - v.t) + (performance.now() - b.at);
  }
  return Math.max(0, Math.round(ms));
}

function colours(v) { return COLOURS[v.game] || ["First", "Second"]; }

function resultText(v) {
  if (v.result === 2) return "draw";
  if (v.result === 0 || v.result === 1) return colours(v)[v.result] + " wins";
  return v.state === "finished" ? "finished" : "";
}

const ALERT_TEXT = { knock: "knocked over", flag: "flag fell", held: "lever held", lost: "clock lost" };

function alertText(v, a) {
  const who = a.side >= 0 ? colours(v)[a.side] + ": " : "";
  return "Board " + (v.server ? v.server + " " : "") + v.no + " — " + who + (ALERT_TEXT[a.kind] || a.kind);
}

let arbiter = false;

async function api(path, body) {
  const r = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function showLogin() {
  document.getElementById("login-form").hidden = arbiter;
  document.getElementById("logout").hidden = !arbiter;
  document.body.classList.toggle("arbiter", arbiter);
  if (window.onArbiter) window.onArbiter();
}

function setupLogin() {
  document.getElementById("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const pw = document.getElementById("password");
    try {
      await api("/api/login", { password: pw.value });
      arbiter = true; pw.value = ""; document.getElementById("login-error").textContent = "";
    } catch (err) { document.getElementById("login-error").textContent = err.message; }
    showLogin(); render();
  });
  document.getElementById("logout").addEventListener("click", async () => {
    await api("/api/logout", {}); arbiter = false; showLogin(); render();
  });
}

function connect(onEvent) {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data), now = performance.now();
    if (msg.type === "hello") {
      arbiter = msg.arbiter; showLogin();
      for (const v of msg.boards) boards.set(v.key, { view: v, at: now });
    } else if (msg.type === "board") {
      boards.set(msg.board.key, { view: msg.board, at: now });
      if (onEvent && msg.event) onEvent(msg.event);
    }
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    render();
  };
  ws.onclose = () => { document.body.classList.add("offline"); setTimeout(() => connect(onEvent), 1000); };
  ws.onopen = () => document.body.classList.remove("offline");
}

async function ack(no, id) {
  try { await api("/api/boards/" + no + "/ack", { event: id }); } catch (e) { alert(e.message); }
}

function sortedBoards() {
  const local = (k) => /^\d+$/.test(k);
  return [...boards].sort(([a], [b]) =>
    local(a) && local(b) ? Number(a) - Number(b) : local(a) ? -1 : local(b) ? 1 : a.localeCompare(b));
}

function renderAlerts(only) {
  const box = document.getElementById("alerts");
  box.replaceChildren();
  for (const [key, b] of sortedBoards()) {
    const no = b.view.no;
    if (only !== undefined && key !== only) continue;
    for (const a of b.view.alerts) {
      const div = document.createElement("div");
      div.className = "alert alert-" + a.kind;
      div.dataset.board = no; div.dataset.kind = a.kind;
      div.textContent = alertText(b.view, a);
      if (arbiter && !b.view.server) {
        const btn = document.createElement("button");
        btn.textContent = "Acknowledge"; btn.className = "ack";
        btn.onclick = () => ack(no, a.id);
        div.append(btn);
      }
      box.append(div);
    }
  }
}
