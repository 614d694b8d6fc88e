// SPDX-License-Identifier: GPL-3.0-or-later
// The board's game as the server runs it (the console's session): its log, the engine's
// proposal with its reasons, and the arbiter's rulings as buttons or a typed console line.
// Every action that ends a game or changes a time asks first. Each carries an idempotency
// key, so a retry (a lost answer, a restarted server) is applied once.
"use strict";
let sessionView = null;
let seenRev = -1;
let sessionPending = null;

// Typed lines that end a game or change a time (asked first): the console's verbs.
const ASKS = new Set(["foul", "nomove", "illegal", "claim", "resign", "phone", "confirm",
  "overrule", "unrule", "count", "agree", "accept", "win", "draw", "penalty", "adjust", "knock",
  "quickplay"]);

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick") e.onclick = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
}

// POST with the action's key (api.js), sent again (same key) while the server or the clock is away.
function postKept(path, body) {
  return apiKept(path, body, () => {
    document.getElementById("session-error").textContent = "the server is away: sending again…";
  });
}

// Confirming the engine's proposal, in plain words: what it does first ("Black wins"),
// then the engine's reason.
function confirmWords(p) {
  const ends = p.ends || "";
  return ["confirm the engine's proposal: " + (ends ? ends + ", the game ends" : "play goes on, the game does not end") +
    " (the engine: " + p.verdict + ")", ends ? "Confirm: " + ends : "Confirm: play on"];
}

async function sendLine(line, label, yes) {
  const err = document.getElementById("session-error");
  const verb = line.trim().split(/\s+/)[0].toLowerCase();
  if (verb === "confirm" && !label && sessionView && sessionView.proposal) [label, yes] = confirmWords(sessionView.proposal);
  if (ASKS.has(verb) && !(await askFirst("Board " + NO + ": " + (label || line) + "?", yes || "Yes: " + (label || line)))) return false;
  try {
    const got = await postKept("/api/boards/" + NO + "/session", { line });
    const bad = (got.lines || []).filter((x) => x.startsWith("?"));
    err.textContent = bad.join(" ");
    document.getElementById("session-out").textContent = (got.lines || []).join("\n");
    if (got.session) drawSession(got.session);
    return !bad.length;
  } catch (e) { err.textContent = line + ": " + e.message; return false; }
}

async function loadSession() {
  try { drawSession(await api("/api/boards/" + NO + "/session")); } catch (e) { /* offline */ }
}

// What a ruling does, in plain words, as its question says it: SIDE is the side the button
// is for, OTHER its opponent; a function gets the session's view and the side.
function asked(ask, v, i) {
  const text = typeof ask === "function" ? ask(v, i) : ask;
  return text ? text.replace(/SIDE/g, v.sides[i]).replace(/OTHER/g, v.sides[1 - i]) : null;
}

const XQ_FOUL = (what) => (v, i) => v.fouls[i] >= 1
  ? what + ": SIDE's second foul, so OTHER wins (XQ-R17)"
  : what + ": SIDE's first foul; a second loses (XQ-R17)";

function sideButtons(v, verbs) {
  // One row per side: [label, line template with SIDE, the question's words]
  const box = el("div", { class: "session-sides" });
  [0, 1].forEach((i) => {
    const name = v.sides[i];
    const row = el("div", { class: "session-side", "data-side": String(i) }, el("b", { text: name + " " }));
    for (const [label, tmpl, ask] of verbs) {
      const line = tmpl.replace("SIDE", name.toLowerCase());
      row.append(el("button", { "data-line": line, onclick: () => sendLine(line, asked(ask, v, i)), text: label }), " ");
    }
    box.append(row);
  });
  return box;
}

const SIDE_VERBS = {
  xiangqi: [["Foul", "foul SIDE", XQ_FOUL("a foul for SIDE")],
    ["No move", "nomove SIDE", XQ_FOUL("SIDE pressed without moving (XQ-R19), the clock goes back to SIDE")],
    ["Claim limit", "claim SIDE limit", "SIDE claims the natural move limit: the engine proposes, you confirm or overrule (nothing ends yet)"],
    ["Claim repetition", "claim SIDE rep", "SIDE claims a repetition: the engine proposes, you confirm or overrule (nothing ends yet)"],
    ["Offer draw", "offer SIDE"], ["Resign", "resign SIDE", "SIDE resigns: OTHER wins"],
    ["Phone", "phone SIDE", "SIDE's phone rang (XQ-R25): OTHER wins"],
    ["Wins", "win SIDE", "SIDE wins by the arbiter's ruling"]],
  chess: [["Illegal move", "illegal SIDE", (v, i) => v.illegal && v.illegal[i] >= 1
    ? "SIDE's last move was illegal, SIDE's second: OTHER wins (CH-1, FIDE 7.5.5; a draw if OTHER cannot mate)"
    : "SIDE's last move was illegal (CH-1): it is taken back and OTHER gets 2 minutes; a second loses"],
    ["No move", "nomove SIDE", (v, i) => v.illegal && v.illegal[i] >= 1
      ? "SIDE pressed without moving, SIDE's second illegal move: OTHER wins (CH-1, FIDE 7.5.5)"
      : "SIDE pressed without moving (CH-1): OTHER gets 2 minutes; a second loses"],
    ["Claim threefold", "claim SIDE threefold", "SIDE claims a threefold repetition: a draw if it holds, else OTHER gets 2 minutes"],
    ["Claim fifty", "claim SIDE fifty", "SIDE claims the fifty-move rule: a draw if it holds, else OTHER gets 2 minutes"],
    ["Offer draw", "offer SIDE"], ["Resign", "resign SIDE", "SIDE resigns: OTHER wins"], ["Wins", "win SIDE", "SIDE wins by the arbiter's ruling"]],
  go: [["Resign", "resign SIDE", "SIDE resigns: OTHER wins"], ["Foul", "foul SIDE", "a foul for SIDE"], ["Wins", "win SIDE", "SIDE wins by the arbiter's ruling"]],
};

// "黑胜3/4子 (B+1.5)" as the count's result in words: "Black wins by 1.5".
function goWinner(score) {
  const m = /\(([BW])\+([^)]*)\)/.exec(score || "");
  return m ? (m[1] === "B" ? "Black" : "White") + " wins by " + m[2] : score;
}

const GAME_VERBS = {
  xiangqi: [["Accept draw", "accept", "the draw offer is accepted: a draw"], ["Decline", "decline"],
    ["Undo ruling", "unrule", "undo the last ruling: what it did is taken back"], ["Take back move", "undo"],
    ["Draw", "draw", "a draw by the arbiter's ruling"]],
  chess: [["Accept draw", "accept", "the draw offer is accepted: a draw"], ["Decline", "decline"], ["Take back move", "undo"],
    ["Draw", "draw", "a draw by the arbiter's ruling"]],
  go: [["Pass", "pass"], ["Agree (play over)", "agree", "both agree play is over (GO-5): the clock stops for the count"],
    ["Score", "score"], ["Count (ends the game)", "count", (v) => "count and end the game (GO-6)" +
      (v.score ? ": " + goWinner(v.score) : "")], ["Take back move", "undo"]],
};

function drawSession(v) {
  sessionView = v;
  if (v.kind === "go") drawBoard(); // its dead stones marked
  const box = document.getElementById("session-body");
  box.replaceChildren();
  if (!v.active) {
    box.append(el("p", { text: "No game session on this board yet: load a time control, or start one here." }));
    return;
  }
  const head = v.over ? v.result : "fouls " + v.fouls[0] + "-" + v.fouls[1] +
    (v.waiting.length ? " · press waiting for its move: " + v.waiting.map((s) => v.sides[s]).join(", ") : "");
  box.append(el("p", { class: "session-head", text: v.spec + " · " + head }));
  if (v.proposal) {
    const p = v.proposal;
    const prop = el("div", { class: "proposal", id: "proposal" },
      el("b", { text: "The engine proposes on the " + p.what + ": " + p.verdict + (p.rule ? " (" + p.rule + ")" : "") }),
      el("ul", {}, ...p.reasons.map((r) => el("li", { text: r }))));
    const row = el("div", {});
    // Confirming says what it does first ("Black wins"), then the engine's reason.
    const ends = p.ends || "";
    row.append(el("button", { id: "confirm", onclick: () => sendLine("confirm"), text: "Confirm" + (ends ? ": " + ends : "") }),
      " Overrule: ");
    for (const [label, word, what] of [["draw", "draw", "a draw"], [v.sides[0] + " wins", v.sides[0].toLowerCase(), v.sides[0] + " wins"],
      [v.sides[1] + " wins", v.sides[1].toLowerCase(), v.sides[1] + " wins"], ["play on", "play", "play goes on"]]) {
      row.append(el("button", { "data-overrule": word, onclick: () => sendLine("overrule " + word, "overrule the engine: " + what,
        "Overrule: " + what), text: label }), " ");
    }
    prop.append(row);
    box.append(prop);
  }
  if (!v.over) {
    box.append(sideButtons(v, SIDE_VERBS[v.kind] || []));
    const row = el("div", { class: "session-game" });
    for (const [label, line, ask] of GAME_VERBS[v.kind] || []) {
      row.append(el("button", { "data-line": line, onclick: () => sendLine(line, asked(ask, v, 0)), text: label }), " ");
    }
    box.append(row);
  }
  if (v.kind === "go" && v.play_over) {
    box.append(el("p", { id: "go-score", text: "Dead: " + (v.dead.join(" ") || "none") + " · score: " + (v.score || "") +
      (v.over ? "" : " · click a chain on the board to mark it dead") }));
  }
  const log = el("ul", { id: "session-log" }); // each move's text has its own number (1. Red 炮二平五)
  for (const n of v.log.slice(-12).reverse()) log.append(el("li", { class: "n-" + n.kind, text: n.text }));
  box.append(log);
}

// Go: after play, a click on a stone marks (or unmarks) its chain dead.
document.getElementById("position").addEventListener("click", (e) => {
  const v = sessionView;
  if (!arbiter || !v || v.kind !== "go" || !v.play_over || v.over) return;
  const svg = e.target.closest("svg");
  if (!svg || !detail || !detail.position) return;
  const n = detail.position.size || 19, S = 24, M = 24;
  const pt = svg.createSVGPoint(); pt.x = e.clientX; pt.y = e.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  const col = Math.round((p.x - M) / S), row = Math.round((p.y - M) / S);
  if (col < 0 || row < 0 || col >= n || row >= n) return;
  const vertex = "ABCDEFGHJKLMNOPQRST"[col] + String(n - row);
  sendLine("dead " + vertex);
});

function setupSession() {
  const host = document.getElementById("session");
  host.append(
    el("h3", { text: "Game (the arbiter's session)" }),
    el("div", { id: "session-body" }),
    el("form", { id: "session-form", class: "arbiter-only" },
      el("input", { id: "session-line", placeholder: "a move, or a console command: foul red, claim black rep, dead D4, help", autocomplete: "off" }),
      " ", el("button", { id: "session-send", text: "Send" }),
      " ", el("label", {}, el("input", { id: "session-strict", type: "checkbox" }), " moves entered live"),
      " ", el("button", { id: "session-new", type: "button", text: "New session" })),
    el("div", { id: "session-error", class: "error" }),
    el("pre", { id: "session-out" }));
  document.getElementById("session-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const box = document.getElementById("session-line");
    if (await sendLine(box.value)) box.value = "";
  });
  document.getElementById("session-new").onclick = async () => {
    if (!(await askFirst("Board " + NO + ": a new session for the game on the clock (the last one's rulings end)?", "New session"))) return;
    const late = !document.getElementById("session-strict").checked;
    try {
      const got = await postKept("/api/boards/" + NO + "/session/new", { options: { late_entry: late } });
      drawSession(got.session);
    } catch (e) { document.getElementById("session-error").textContent = e.message; }
  };
}

const renderBeforeSession = render;
render = function () {
  renderBeforeSession();
  const b = boards.get(String(NO));
  document.getElementById("session").classList.toggle("public", !arbiter);
  if (!b) return;
  if (b.view.session_rev !== seenRev) {
    seenRev = b.view.session_rev;
    clearTimeout(sessionPending);
    sessionPending = setTimeout(() => { loadSession(); loadDetail(); }, 50); // moves, position
  }
};

setupSession();
loadSession();
