// SPDX-License-Identifier: GPL-3.0-or-later
// The rounds page: a round's results and the hall's alerts first (what the arbiter works
// from), then a new round's pairings and the tournament (docs/server.md). The socket, the
// login, the alerts and the lost-server banner are common.js's.
"use strict";
let current = 0; // the round shown
let rows = [];

const $ = (id) => document.getElementById(id);

function say(id, text, ok) {
  $(id).textContent = text;
  $(id).className = ok ? "ok" : "error";
}

window.onArbiter = () => {
  for (const el of document.querySelectorAll("#tournament-form input")) el.disabled = !arbiter;
  if (current) loadRound().catch(() => {});
};

// A new round's date, unless the arbiter types one: today's (this computer's own date).
function today() {
  const d = new Date(), pad = (n) => String(n).padStart(2, "0");
  return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
}

async function loadTournament() {
  const t = await api("/api/tournament");
  $("t-name").value = t.name; $("t-site").value = t.site;
  $("t-start").value = t.start; $("t-end").value = t.end;
}

async function loadRounds() {
  const got = await api("/api/rounds");
  const nav = $("round-list");
  nav.replaceChildren();
  for (const r of got.rounds) {
    const b = document.createElement("button");
    b.textContent = "Round " + r.round + (r.date ? " (" + r.date + ")" : "");
    b.className = r.round === current ? "on" : "";
    b.dataset.round = r.round;
    b.addEventListener("click", () => { current = r.round; loadRounds(); });
    nav.append(b);
  }
  if (!current && got.rounds.length) current = got.rounds[got.rounds.length - 1].round;
  if (current) await loadRound();
}

const LABELS = ["Board", "", "", "Game", "Control", "State", "Moves", "Result", "Score", "Record"];
const CLASSES = ["board", "first", "second", "game", "spec", "state", "moves", "result", "score", "record"];

function cell(tr, text) {
  const i = tr.cells.length, td = document.createElement("td");
  td.textContent = text;
  td.className = CLASSES[i];
  td.dataset.label = LABELS[i];
  tr.append(td);
  return td;
}

async function loadRound() {
  const got = await api("/api/rounds/" + current);
  rows = got.boards;
  $("round").hidden = false;
  $("round-title").textContent = "Round " + current + (got.date ? ", " + got.date : "");
  $("r-csv").href = "/rounds/" + current + "/results.csv";
  $("r-zip").href = "/rounds/" + current + ".zip";
  for (const b of $("round-list").children) b.className = +b.dataset.round === current ? "on" : "";
  const body = $("results").tBodies[0];
  body.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement("tr");
    const live = boards.get(String(r.board));
    tr.className = r.state.replace(/ /g, "-") + (live && liveAlerts(live.view).length ? " alerting" : "");
    tr.dataset.board = r.board;
    const no = cell(tr, "");
    const open = document.createElement("a");
    open.href = "/board/" + r.board; open.textContent = r.board;
    no.append(open);
    cell(tr, r.first);
    cell(tr, r.second);
    cell(tr, r.game);
    cell(tr, r.spec);
    cell(tr, r.state);
    cell(tr, r.moves);
    cell(tr, r.result);
    const score = cell(tr, r.score);
    if (arbiter && r.game === "go" && r.game_no) {
      const input = document.createElement("input");
      input.size = 6; input.placeholder = "B+3.5";
      const btn = document.createElement("button");
      btn.textContent = "Score";
      btn.addEventListener("click", async () => {
        try {
          await api("/api/boards/" + r.board + "/score", { score: input.value, game: r.game_no });
          await loadRound();
        } catch (err) { say("r-msg", "board " + r.board + ": " + err.message); }
      });
      score.append(" ", input, btn);
    }
    const rec = cell(tr, "");
    if (r.record) {
      const a = document.createElement("a");
      a.href = r.record; a.textContent = r.record.split("/").pop();
      rec.append(a);
    }
    body.append(tr);
  }
}

async function roundAction(verb) {
  say("r-msg", verb === "start" ? "starting…" : "setting up…", true);
  try {
    const got = await api("/api/rounds/" + current + "/" + verb, {});
    const bad = got.boards.filter((b) => b.outcome !== "ok");
    say("r-msg", bad.length ? bad.map((b) => "board " + b.board + ": " + b.outcome).join("; ")
      : (verb === "start" ? "started: " : "set up: ") + got.boards.length + " boards", !bad.length);
  } catch (err) { say("r-msg", err.message); }
  await loadRound();
}

let pending = null;
function soon() { // many boards change at once: one refresh for them
  if (pending) return;
  pending = setTimeout(async () => { pending = null; if (current) await loadRound().catch(() => {}); }, 300);
}

// common.js draws on every message: the alerts here, and the round's table again soon.
function render() {
  renderAlerts();
  soon();
}

function setup() {
  setupLogin();
  setupSound();
  $("tournament-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await api("/api/tournament", { name: $("t-name").value, site: $("t-site").value,
        start: $("t-start").value, end: $("t-end").value });
      say("t-msg", "saved", true);
    } catch (err) { say("t-msg", err.message); }
  });
  $("i-file").addEventListener("change", async () => {
    const f = $("i-file").files[0];
    if (f) $("i-text").value = await f.text();
  });
  $("i-date").value = today();
  $("import-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { pairings: $("i-text").value, date: $("i-date").value };
    if ($("i-round").value) body.round = +$("i-round").value;
    try {
      const got = await api("/api/rounds", body);
      say("i-msg", "round " + got.round + ": " + got.pairings + " boards", true);
      current = got.round;
      await loadRounds();
    } catch (err) { say("i-msg", err.message); }
  });
  $("r-setup").addEventListener("click", () => roundAction("setup"));
  $("r-start").addEventListener("click", () => roundAction("start"));
}

(async () => {
  setup();
  await loadTournament();
  await loadRounds();
  connect();
})();
