// SPDX-License-Identifier: GPL-3.0-or-later
// One board: its card, the position, the moves with their clock times, the arbiter's actions
// (each that ends a game or changes a time asked first) and their log.
"use strict";
const NO = Number(location.pathname.split("/").pop());
baseTitle = "棋钟 board " + NO;
let detail = null;
let seenEvents = -1;
let seenChange = "";
let pending = null;
let shownGame = null; // the game the players' form shows: the board's, until the arbiter picks

async function loadDetail() {
  try { detail = await api("/api/boards/" + NO); }
  catch (e) { document.getElementById("act-error").textContent = "the board: " + e.message; return; }
  drawBoard();
  const ol = document.getElementById("moves");
  ol.replaceChildren();
  const names = colours(detail);
  const n = Math.max(detail.presses.length, detail.played_moves.length);
  for (let i = 0; i < n; i++) {
    const p = detail.presses[i], li = document.createElement("li");
    const move = detail.played_moves[i] || (p ? names[p.side] + " pressed" : "");
    li.textContent = move + (p ? "  " + fmt(p.left) : "");
    ol.append(li);
  }
  if (detail.game !== shownGame) { // so Save keeps a chess board chess (not the first option)
    shownGame = detail.game;
    document.getElementById("game").value = detail.game;
  }
  fillForm(detail);
  document.getElementById("title").textContent = "board " + NO;
  document.getElementById("record").href = detail.record || "#";
  document.getElementById("record").hidden = !detail.record;
}

// The position, with the session's dead stones marked after a Go game's play (GO-6).
function drawBoard() {
  if (!detail) return;
  const v = typeof sessionView === "undefined" ? null : sessionView;
  drawPosition(document.getElementById("position"), detail.position,
    { dead: v && v.kind === "go" ? v.dead || [] : [] });
}

// The players' form and the control's box open with the board's own values (Save on a form
// that opened empty wiped the names); a box the arbiter has typed in is left as typed.
function fillForm(d) {
  for (const [id, value] of [["p0", d.players[0]], ["p1", d.players[1]], ["spec", d.spec]]) {
    const box = document.getElementById(id);
    if (!box.dataset.typed) box.value = value || "";
  }
  document.getElementById("players").disabled = false;
}

document.querySelectorAll("#p0, #p1, #spec").forEach((box) => {
  box.addEventListener("input", () => { box.dataset.typed = "1"; });
});

function typedDone(...ids) { for (const id of ids) delete document.getElementById(id).dataset.typed; }

// -- the arbiter's log: this board's actions as the server kept them ----------------------

function sideOf(side, v) {
  if (side === 0 || side === 1) return side;
  const i = colours(v).map((c) => c.toLowerCase()).indexOf(String(side).toLowerCase());
  return i >= 0 ? i : side === "1" ? 1 : 0;
}

function describeAction(a, v) {
  const x = a.args || {}, names = colours(v), side = names[sideOf(x.side, v)];
  switch (a.verb) {
    case "penalty": return side + " " + signedSeconds(Number(x.ms));
    case "set": return side + "'s time set to " + fmt(Number(x.ms));
    case "knock": return side + " knocked the clock";
    case "finish":
      return x.result === null || x.result === undefined ? "game ended, no result"
        : x.result === 2 || x.result === "draw" ? "result: draw" : "result: " + names[sideOf(x.result, v)] + " wins";
    case "new": return "new game" + (x.override ? " (override)" : "");
    case "config": return "time control " + x.spec + (x.override ? " (override)" : "");
    case "start": return "start, " + side + " to move";
    case "pause": return "pause";
    case "resume": return "resume";
    case "move": return "move " + x.text;
    case "players":
      return "players: " + ["first", "second", "game", "spec"].filter((k) => k in x)
        .map((k) => k + " " + JSON.stringify(x[k])).join(", ");
    case "request": return "clock request: " + x.text;
    default: return a.verb + " " + JSON.stringify(x);
  }
}

async function loadLog() {
  const b = boards.get(String(NO));
  const rows = await api("/api/boards/" + NO + "/actions");
  const ol = document.getElementById("log");
  ol.replaceChildren();
  for (const a of rows.slice(-200).reverse()) {
    const li = document.createElement("li");
    li.dataset.verb = a.verb; li.dataset.outcome = a.outcome;
    li.className = a.outcome === "ok" ? "" : "bad";
    const at = document.createElement("time"), what = document.createElement("span");
    at.textContent = clockTime(new Date(a.host_ms)) + " ";
    what.className = "what";
    what.textContent = describeAction(a, b ? b.view : detail || {}) + (a.outcome === "ok" ? "" : " — " + a.outcome);
    li.append(at, what);
    ol.append(li);
  }
}

// -- drawing ----------------------------------------------------------------------------------

const baseRender = render;
render = function () {
  baseRender();
  const b = boards.get(String(NO));
  if (!b) return;
  const v = b.view;
  const change = [v.events, v.played, v.players, v.spec, v.game, v.game_no].join("|");
  if (v.events !== seenEvents || change !== seenChange) { // new events or settings: reload
    seenEvents = v.events; seenChange = change;
    clearTimeout(pending); pending = setTimeout(() => { loadDetail(); loadLog(); }, 50);
  }
  const names = colours(v);
  document.querySelectorAll("#pen-side option").forEach((o, i) => { o.textContent = names[i]; });
  document.querySelectorAll("[data-knock]").forEach((btn) => { btn.textContent = names[btn.dataset.knock]; });
  document.querySelectorAll("[data-result]").forEach((btn) => {
    if (btn.dataset.result !== "2") btn.textContent = names[btn.dataset.result] + " wins";
  });
  showResumePrompt(v);
};

// After a knock ruling (EQ-5) the clock waits, knocked, until the arbiter resumes it: the
// prompt says so at the top of the page, with the button.
function showResumePrompt(v) {
  const box = document.getElementById("resume-prompt");
  const names = colours(v);
  box.hidden = !(arbiter && v.state === "knocked");
  if (box.hidden) return;
  const text = box.querySelector(".what"), btn = box.querySelector("button");
  if (v.knocker === 0 || v.knocker === 1) {
    text.textContent = "Knock ruled: " + names[v.knocker] + " knocked the clock. The clock waits: resume play, " +
      (v.run === 0 || v.run === 1 ? names[v.run] + "'s time runs." : "when the board is set again.");
    btn.hidden = false;
  } else {
    text.textContent = "The clock was knocked over: name who knocked it (Knock ruling, below); then resume play.";
    btn.hidden = true;
  }
}
document.querySelector("#resume-prompt button").onclick = () => act("resume");
window.onArbiter = () => { document.getElementById("controls").hidden = !arbiter; };

// Every action is sent with its own idempotency key, again with the same key while the
// server or the clock is away (api.js): one click is applied once.
async function act(verb, body) {
  const err = document.getElementById("act-error");
  let ok = false;
  const waiting = () => { err.textContent = verb + ": the server is away: sending again…"; };
  try { await apiKept("/api/boards/" + NO + "/" + verb, body || {}, waiting); err.textContent = ""; ok = true; }
  catch (e) { err.textContent = e.message.startsWith(verb + ":") ? e.message : verb + ": " + e.message; }
  loadLog();
  return ok;
}

// -- what an action will do, in words, asked before it is sent -----------------------------

function here() { return boards.get(String(NO)); }

function sideName(side) { return colours(here() ? here().view : detail || {})[side]; }

function timeNow(side) { const b = here(); return b ? fmt(shownLeft(b, side)) : "?"; }

function inPlay() { const b = here(); return b && ["running", "paused", "knocked"].includes(b.view.state); }

const QUESTIONS = {
  penalty: ({ side, ms }) => {
    const b = here(), left = b ? shownLeft(b, side) : 0;
    return ["Give " + sideName(side) + " " + signedSeconds(ms) + " on board " + NO + "? " +
      sideName(side) + "'s time: " + fmt(left) + " → " + fmt(Math.max(0, left + ms)) + ".",
      "Give " + signedSeconds(ms)];
  },
  set: ({ side, ms }) => ["Set " + sideName(side) + "'s time on board " + NO + " to " + fmt(ms) +
    "? It shows " + timeNow(side) + " now.", "Set " + fmt(ms)],
  knock: ({ side }) => ["Rule on board " + NO + ": " + sideName(side) + " knocked the clock over? " +
    sideName(1 - side) + " gets +60 s (EQ-5); the clock then waits for you to resume play.",
    sideName(side) + " knocked it: " + sideName(1 - side) + " +60 s"],
  finish: ({ result }) => {
    const what = result === 2 ? "a draw" : sideName(result) + " wins";
    return ["End the game on board " + NO + ": " + what + "? The clock stops and the result is kept.",
      "End: " + what];
  },
  new: () => ["Start a new game on board " + NO + "? " + (inPlay()
    ? "The game in play ends with no result, and both times go back to the start."
    : "Both times go back to the start."), "New game"],
  config: ({ spec }) => ["Load the time control “" + spec + "” on board " + NO + "? " +
    (inPlay() ? "The game in play ends, and both" : "Both") + " times are set from it.", "Load " + spec],
};

// The action, if the arbiter says yes to what it will do; nothing at all if not.
async function confirmed(verb, body) {
  const [question, yes] = QUESTIONS[verb](body || {});
  if (!(await askFirst(question, yes))) {
    document.getElementById("act-error").textContent = "";
    return false;
  }
  return act(verb, body);
}

function parseTime(text) {
  const parts = text.split(":").map(Number);
  if (!text.trim() || parts.some(isNaN)) return null;
  return Math.round(parts.reduce((a, p) => a * 60 + p, 0) * 1000);
}

document.querySelectorAll("[data-act]").forEach((b) => {
  b.onclick = () => (b.dataset.act in QUESTIONS ? confirmed(b.dataset.act) : act(b.dataset.act));
});
document.querySelectorAll("[data-knock]").forEach((b) => { b.onclick = () => confirmed("knock", { side: Number(b.dataset.knock) }); });
document.querySelectorAll("[data-result]").forEach((b) => { b.onclick = () => confirmed("finish", { result: Number(b.dataset.result) }); });
document.getElementById("penalty").onclick = () => {
  const ms = Math.round(Number(document.getElementById("pen-s").value) * 1000);
  if (!Number.isFinite(ms) || ms === 0) {
    document.getElementById("act-error").textContent = "penalty: seconds to give (+) or take (−), not 0";
    return;
  }
  confirmed("penalty", { side: Number(document.getElementById("pen-side").value), ms });
};
document.getElementById("set").onclick = () => {
  const ms = parseTime(document.getElementById("set-ms").value);
  if (ms === null) { document.getElementById("act-error").textContent = "set: a time as m:ss or h:mm:ss"; return; }
  confirmed("set", { side: Number(document.getElementById("pen-side").value), ms });
};
document.getElementById("move").onclick = async () => {
  const box = document.getElementById("move-text");
  if (await act("move", { text: box.value })) box.value = "";
  loadDetail();
};
document.getElementById("config").onclick = async () => {
  const spec = document.getElementById("spec").value.trim();
  if (!spec) { document.getElementById("act-error").textContent = "config: a time control, such as xq-rapid"; return; }
  if (await confirmed("config", { spec })) typedDone("spec");
};
document.getElementById("players").disabled = true; // until the form has the board's names
document.getElementById("players").onclick = async () => {
  const ok = await act("players", {
    first: document.getElementById("p0").value, second: document.getElementById("p1").value,
    game: document.getElementById("game").value });
  if (ok) typedDone("p0", "p1");
  loadDetail();
};

connect();
loadDetail();
loadLog();
