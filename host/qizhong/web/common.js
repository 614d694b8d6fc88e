// SPDX-License-Identifier: GPL-3.0-or-later
// What the hall page and the board page share: times, the socket, the login, the alerts
// (their panel, the tab title's count, the sound), the lost-server banner, confirmations.
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

// A signed duration as an arbiter says it: "+60 s", "−30 s", "−1.5 s".
function signedSeconds(ms) {
  const s = Math.abs(ms) / 1000;
  return (ms < 0 ? "−" : "+") + (Number.isInteger(s) ? s : s.toFixed(1)) + " s";
}

// -- the link to the server: while it is lost, times freeze and say so ---------------------

const link = { up: false, lostAt: null, last: 0, beatMs: 5000, why: "", ws: null, started: null };

// The page's "now" for ticking: frozen at the moment the server was lost.
function pageNow() { return link.lostAt === null ? performance.now() : link.lostAt; }

// A side's time now: the clock's figure at its own ms t, less what has run
// since (the server's estimate of the clock's now, then this page's own ticks).
function shownLeft(b, side) {
  const v = b.view;
  let ms = v.left[side];
  if (v.state === "running" && v.run === side && v.link === "up") {
    ms -= Math.max(0, v.now - v.t) + Math.max(0, pageNow() - b.at);
  }
  return Math.max(0, Math.round(ms));
}

function clockTime(date) { return date.toLocaleTimeString([], { hour12: false }); }

function linkLost(why) {
  if (link.lostAt === null) {
    link.lostAt = Math.max(link.last, 0) || performance.now();
    link.since = new Date(Date.now() - (performance.now() - link.lostAt));
  }
  link.up = false; link.why = why;
  const banner = document.getElementById("offline");
  if (banner) {
    banner.textContent = "⚠ No connection to the hall server since " + clockTime(link.since) +
      " (" + why + "). The times shown are frozen at that moment and are NOT the clocks' times now. " +
      "Reconnecting…";
    banner.hidden = false;
  }
  document.body.classList.add("offline");
  updateTitle();
}

function linkUp(hello) {
  if (link.lostAt !== null && link.since) { // back after a loss: the notice says what came back
    comeback = { at: new Date(), away: Date.now() - link.since.getTime(),
      restarted: link.started !== null && hello.started_ms !== link.started,
      problems: hello.problems || [], interrupted: hello.interrupted || 0 };
  }
  link.started = hello.started_ms === undefined ? null : hello.started_ms;
  link.up = true; link.lostAt = null; link.why = "";
  const banner = document.getElementById("offline");
  if (banner) banner.hidden = true;
  document.body.classList.remove("offline");
}

// No message for 2.5 beats (the server sends one every beat_ms): lost, even if the
// socket still looks open (a hung server, a dead network path).
setInterval(() => {
  if (link.up && performance.now() - link.last > 2.5 * link.beatMs) {
    linkLost("no heartbeat for " + Math.round((performance.now() - link.last) / 1000) + " s");
    if (link.ws) link.ws.close();
  }
}, 250);

function colours(v) { return COLOURS[v.game] || ["First", "Second"]; }

function resultText(v) {
  if (v.result === 2) return "draw";
  if (v.result === 0 || v.result === 1) return colours(v)[v.result] + " wins";
  return v.state === "finished" ? "finished" : "";
}

// -- after a loss: what came back, until the arbiter has read it ------------------------

let comeback = null; // {at, away, restarted, problems}: the last return, shown until dismissed

function comebackText() {
  const c = comeback, all = [...boards.values()].filter((b) => !b.view.server);
  const up = all.filter((b) => b.view.link === "up").length;
  const games = all.filter((b) => ["running", "paused", "knocked", "flagged"].includes(b.view.state)).length;
  const alerts = all.reduce((n, b) => n + liveAlerts(b.view).length, 0);
  const head = c.restarted
    ? "The hall server restarted: back at " + clockTime(c.at) + " after " + (c.away / 1000).toFixed(1) + " s."
    : "The connection is back at " + clockTime(c.at) + " after " + (c.away / 1000).toFixed(1) +
      " s; the server did not restart.";
  return head + " Back: " + all.length + " boards, " + up + " of them with their clock answering, " +
    games + " games in play, " + alerts + " alerts kept" + (arbiter ? ", you are still logged in" : "") +
    "." + (c.problems.length ? " Not rebuilt: " + c.problems.join("; ") : " Nothing acknowledged was lost.") +
    (c.restarted && c.interrupted ? " " + c.interrupted + " actions the stop cut short are marked failed (the boards' logs say which)." : "");
}

function showComeback() {
  let box = document.getElementById("comeback");
  if (!comeback) { if (box) box.hidden = true; return; }
  if (!box) {
    box = document.createElement("div");
    box.id = "comeback"; box.setAttribute("role", "status");
    box.innerHTML = '<span class="what"></span> <button type="button">OK</button>';
    box.querySelector("button").onclick = () => { comeback = null; showComeback(); };
    const after = document.getElementById("offline");
    if (after) after.after(box); else document.body.prepend(box);
  }
  box.hidden = false;
  box.querySelector(".what").textContent = comebackText();
}

// -- alerts -----------------------------------------------------------------------------------

function boardName(v) { return "Board " + (v.server ? v.server + " " : "") + v.no; }

// An alert as the arbiter must read it: who did what, on which board.
function alertText(v, a) {
  const names = colours(v), who = (s) => names[s] || "?";
  let what;
  if (a.kind === "knock") {
    what = a.knocker === 0 || a.knocker === 1
      ? who(a.knocker) + " knocked the clock" +
        (a.bonus > 0 ? "; " + who(1 - a.knocker) + " " + signedSeconds(a.bonus) : "")
      : "clock knocked over" + (a.side >= 0 ? " while " + who(a.side) + "'s time ran" : "") +
        " — arbiter to name who knocked it";
  } else if (a.kind === "flag") what = who(a.side) + "'s flag fell";
  else if (a.kind === "held") what = who(a.side) + "'s lever is held down";
  else if (a.kind === "lost") what = "clock lost: it does not answer";
  else if (a.kind === "store") what = "the server cannot write its record (a full disk?): the clock keeps the events";
  else if (a.kind === "worker") what = "the server's thread for this clock failed: it connects again";
  else what = a.text ? String(a.text) : a.kind + (a.side >= 0 ? " (" + who(a.side) + ")" : "");
  return boardName(v) + ": " + what;
}

// A board's alerts the pages pin: those of a game that has not ended (the server marks an
// alert ``over`` once its game has a result or a new game began) and the clock's own.
function liveAlerts(v) { return v.alerts.filter((a) => !a.over); }

function alertCount() {
  let n = 0;
  for (const [, b] of boards) n += liveAlerts(b.view).length;
  return n;
}

let baseTitle = document.title; // the board page adds its number

// The tab's title: the unacknowledged alerts' count first, and a lost server.
function updateTitle() {
  const n = alertCount();
  document.title = (link.lostAt !== null ? "⚠ OFFLINE " : "") + (n ? "(" + n + ") " : "") + baseTitle;
}

// -- the sound: off unless the arbiter turns it on (remembered in this browser) ----------

const prefs = {
  get(key) { try { return localStorage.getItem("qizhong." + key); } catch (e) { return null; } },
  set(key, value) { try { localStorage.setItem("qizhong." + key, value); } catch (e) { /* private mode */ } },
};

let audio = null;

function soundOn() { return prefs.get("sound") === "on"; }

function unlockAudio() { // browsers start sound only after a click on the page
  if (!soundOn()) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const ctx = audio;
    if (ctx.state === "suspended") ctx.resume().then(() => { document.body.dataset.audio = ctx.state; });
    document.body.dataset.audio = ctx.state;
  } catch (e) { audio = null; }
}

// Two short beeps (WebAudio, no file). data-beeps counts them for the tests.
function beep() {
  if (!soundOn()) return;
  unlockAudio();
  if (!audio) return;
  const t0 = audio.currentTime;
  for (const start of [0, 0.25]) {
    const osc = audio.createOscillator(), gain = audio.createGain();
    osc.type = "square"; osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, t0 + start);
    gain.gain.exponentialRampToValueAtTime(0.001, t0 + start + 0.18);
    osc.connect(gain).connect(audio.destination);
    osc.start(t0 + start); osc.stop(t0 + start + 0.2);
  }
  document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
  document.body.dataset.audio = audio.state;
}

function showSound() {
  const btn = document.getElementById("sound");
  if (!btn) return;
  btn.textContent = soundOn() ? "sound: on" : "sound: off";
  btn.setAttribute("aria-pressed", String(soundOn()));
}

function setupSound() {
  const btn = document.getElementById("sound");
  if (!btn) return;
  btn.onclick = () => {
    prefs.set("sound", soundOn() ? "off" : "on");
    showSound();
    if (soundOn()) { unlockAudio(); beep(); } // the arbiter hears what an alert sounds like
  };
  document.addEventListener("pointerdown", unlockAudio);
  document.addEventListener("keydown", unlockAudio);
  showSound();
}

const seenAlerts = new Set(); // "key:id" of every alert this page has shown
let primed = false; // after the first hello: alerts already there when the page opened do not beep

function noticeNewAlerts() {
  let fresh = 0;
  for (const [key, b] of boards) {
    for (const a of liveAlerts(b.view)) {
      const id = key + ":" + a.id;
      if (!seenAlerts.has(id)) { seenAlerts.add(id); fresh++; }
    }
  }
  if (fresh && primed) beep();
  primed = true;
}

// -- the server -------------------------------------------------------------------------------

let arbiter = false;

function showLogin() {
  if (!document.getElementById("login-form")) return; // the spectators' page: no login
  document.getElementById("login-form").hidden = arbiter;
  document.getElementById("logout").hidden = !arbiter;
  document.body.classList.toggle("arbiter", arbiter);
  if (window.onArbiter) window.onArbiter();
}

function setupLogin() {
  if (!document.getElementById("login-form")) return;
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

// A board's view as it came over the socket, before it is kept and drawn: the one
// place a check of what arrives (another server's board, via the broker) belongs.
function intake(view) {
  return view && typeof view === "object" && typeof view.key === "string" ? view : null;
}

function keep(view, now) {
  const v = intake(view);
  if (v) boards.set(v.key, { view: v, at: now });
  return v;
}

function connect(onEvent) {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  link.ws = ws;
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data), now = performance.now();
    link.last = now;
    if (msg.type === "hello") {
      arbiter = msg.arbiter; showLogin();
      if (msg.beat_ms > 0) link.beatMs = msg.beat_ms;
      boards.clear(); // the server's boards now: none kept from before it was lost
      for (const v of msg.boards) keep(v, now);
      linkUp(msg);
    } else if (msg.type === "board") {
      keep(msg.board, now);
      if (onEvent && msg.event) onEvent(msg.event);
    } else return; // a beat: only proof of life
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    render();
  };
  ws.onclose = () => {
    if (link.ws !== ws) return;
    if (link.up || link.lostAt === null) linkLost("the connection closed");
    setTimeout(() => connect(onEvent), 1000);
  };
}

async function ack(no, id) {
  try { await apiKept("/api/boards/" + no + "/ack", { event: id }); } catch (e) { showError(e.message); }
}

function showError(text) {
  const box = document.getElementById("act-error") || document.getElementById("login-error");
  if (box) box.textContent = text;
}

function sortedBoards() {
  const local = (k) => /^\d+$/.test(k);
  return [...boards].sort(([a], [b]) =>
    local(a) && local(b) ? Number(a) - Number(b) : local(a) ? -1 : local(b) ? 1 : a.localeCompare(b));
}

// The alerts panel (kept in view at any scroll by hall.css): the hall's, every board's live
// alerts; a board page's (``own``: its key), its own board's, and the others as one line
// with their count and a link to the hall.
function renderAlerts(own) {
  const box = document.getElementById("alerts");
  if (!box) return; // the spectators' page: the alerts are the arbiter's
  box.replaceChildren();
  let others = 0;
  for (const [key, b] of sortedBoards()) {
    const no = b.view.no;
    if (own !== undefined && key !== own) { others += liveAlerts(b.view).length; continue; }
    for (const a of liveAlerts(b.view)) {
      const div = document.createElement("div");
      div.className = "alert alert-" + a.kind;
      div.dataset.board = no; div.dataset.kind = a.kind;
      const text = document.createElement("span");
      text.className = "what";
      text.textContent = alertText(b.view, a);
      div.append(text);
      if (a.host_ms > 0) { // when the server kept it, on this page's clock
        const when = document.createElement("time");
        when.textContent = clockTime(new Date(a.host_ms));
        div.append(when);
      }
      if (!b.view.server && !window.BOARD_PAGE) {
        const go = document.createElement("a");
        go.href = "/board/" + no; go.textContent = "open"; go.className = "open";
        div.append(go);
      }
      if (arbiter && !b.view.server) {
        const btn = document.createElement("button");
        btn.textContent = "Acknowledge"; btn.className = "ack";
        btn.onclick = () => ack(no, a.id);
        div.append(btn);
      }
      box.append(div);
    }
  }
  if (others) {
    const div = document.createElement("div");
    div.className = "others";
    div.append(others + (others === 1 ? " alert" : " alerts") + " on other boards: ");
    const go = document.createElement("a");
    go.href = "/"; go.textContent = "the hall";
    div.append(go);
    box.append(div);
  }
  noticeNewAlerts();
  updateTitle();
  showComeback();
}

// A standings table: rank, player, rating, federation or club, points, games, then each
// tie-break, headed by its short name (对手分, Buchholz Cut-1), its full name and rule in the
// heading's tooltip. The rounds page's and the spectators'.
function standingsTable(got) {
  const short = (t) => { const n = t.name.split(" (")[0]; return n.length > 12 ? t.key : n; };
  const table = document.createElement("table");
  table.className = "standings";
  const tbs = got.tiebreaks || [];
  const head = table.createTHead().insertRow();
  for (const [text, rule] of [["#"], ["Player"], ["Rating"], ["Fed/club"], ["Pts"], ["Games"],
    ...tbs.map((t) => [short(t), t.name + ": " + t.rule])]) {
    const th = document.createElement("th");
    th.textContent = text;
    if (rule) th.title = rule;
    head.append(th);
  }
  const body = table.createTBody();
  for (const r of got.rows || []) {
    const tr = body.insertRow();
    tr.dataset.no = r.no;
    if (r.withdrawn) tr.className = "withdrawn";
    [r.rank, r.name + (r.withdrawn ? " (withdrew)" : ""), r.rating || "", r.fed || "", r.points, r.games,
      ...tbs.map((t) => (r.tb || {})[t.key])].forEach((v, i) => {
      const td = tr.insertCell();
      td.textContent = v === undefined || v === null ? "" : String(v);
      if (i !== 1 && i !== 3) td.className = "num";
    });
  }
  return table;
}

// -- confirmations: an action that ends a game or changes a time asks first ---------------

// Resolves true only if the arbiter answers yes; Esc or Cancel: false.
function askFirst(question, yes) {
  let d = document.getElementById("ask");
  if (!d) {
    d = document.createElement("dialog");
    d.id = "ask";
    d.innerHTML = '<form method="dialog"><p class="question"></p><div class="buttons">' +
      '<button value="no" id="ask-no">Cancel</button> ' +
      '<button value="yes" id="ask-yes" class="danger"></button></div></form>';
    document.body.append(d);
  }
  d.querySelector(".question").textContent = question;
  d.querySelector("#ask-yes").textContent = yes || "Yes";
  d.returnValue = "";
  d.showModal();
  d.querySelector("#ask-no").focus(); // Enter alone does not act
  return new Promise((resolve) => {
    d.addEventListener("close", () => resolve(d.returnValue === "yes"), { once: true });
  });
}
