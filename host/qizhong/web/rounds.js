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
  loadPlayers();
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
    cell(tr, r.state + (r.late ? " · late: " + r.late.replace(/^(\w+) (\d+)$/, (m, side, min) =>
      (side === "first" ? r.first : r.second) + " " + min + " min") : ""));
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
  const byes = got.byes || [];
  $("byes").textContent = byes.length ? "Byes: " + byes.map((y) => y.name + " (" + y.kind + ")").join(", ") : "";
  $("r-sheet").href = "/rounds/" + current + "/pairings";
  $("r-slips").href = "/rounds/" + current + "/slips";
}

// -- the standings, as the server ranks them (each game's tie-breaks, in its order) ------

async function loadStandings() {
  const game = $("s-game").value;
  $("s-csv").href = "/standings.csv?game=" + game;
  $("s-print").href = "/standings?game=" + game;
  let got;
  try { got = await api("/api/standings?game=" + game); } catch (e) { $("s-table").replaceChildren(); return; }
  $("s-table").replaceChildren(standingsTable(got));
}

// -- the player list -------------------------------------------------------------------

async function loadPlayers() {
  let got;
  try { got = await api("/api/players"); } catch (e) { return; }
  const body = $("player-list").tBodies[0];
  body.replaceChildren();
  for (const p of got.players) {
    const tr = body.insertRow();
    tr.dataset.no = p.no;
    for (const v of [p.no, p.name, p.rating || "", p.fed || "", p.id || "", p.game || ""]) tr.insertCell().textContent = v;
    const cell = tr.insertCell();
    if (p.withdrawn) cell.textContent = "withdrawn from round " + p.withdrawn;
    else if (arbiter) {
      const btn = document.createElement("button");
      btn.textContent = "Withdraw"; btn.className = "withdraw";
      btn.onclick = async () => {
        const from = (current || 0) + 1;
        if (!(await askFirst("Withdraw " + p.name + " from round " + from + " on? They are paired no more; " +
          "their games played stand.", "Withdraw " + p.name))) return;
        try { await api("/api/players/" + p.no + "/withdraw", { round: from }); say("p-msg", p.name + " withdrawn", true); }
        catch (err) { say("p-msg", err.message); }
        loadPlayers();
      };
      cell.append(btn);
    }
  }
}

function numbers(text) { return text.split(/[\s,]+/).filter(Boolean).map(Number); }

// A board's ruling in plain words, asked first: what it does to the result.
function boardQuestion(body, verb) {
  const r = rows.find((x) => x.board === body.board) || { first: "first", second: "second" };
  const who = body.side === "both" ? "both players" : r[body.side];
  if (verb === "forfeit") {
    return "Board " + body.board + ": " + who + (body.side === "both" ? " absent: both lose (0-0)?" :
      " absent: " + (body.side === "first" ? r.second : r.first) + " wins by forfeit (" + (body.side === "first" ? "-+" : "+-") + ")?");
  }
  if (verb === "late") return "Board " + body.board + ": " + who + " arrived " + body.minutes + " min late? Within the default time the game is played; after it, a forfeit.";
  return "Board " + body.board + ": the result " + (body.result || "none") + " by hand?";
}

async function roundAction(verb) {
  say("r-msg", verb === "start" ? "starting…" : "setting up…", true);
  try {
    const got = await api("/api/rounds/" + current + "/" + verb, {});
    // A forfeited board is not set up: said, but no failure.
    const forfeit = got.boards.filter((b) => b.outcome.startsWith("forfeit"));
    const bad = got.boards.filter((b) => b.outcome !== "ok" && !forfeit.includes(b));
    say("r-msg", bad.length ? bad.map((b) => "board " + b.board + ": " + b.outcome).join("; ")
      : (verb === "start" ? "started: " : "set up: ") + (got.boards.length - forfeit.length) + " boards" +
      (forfeit.length ? " (" + forfeit.map((b) => "board " + b.board + " forfeit").join(", ") + ")" : ""), !bad.length);
  } catch (err) { say("r-msg", err.message); }
  await loadRound();
}

let pending = null;
function soon() { // many boards change at once: one refresh for them
  if (pending) return;
  pending = setTimeout(async () => {
    pending = null;
    if (current) await loadRound().catch(() => {});
    loadStandings();
  }, 300);
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
    const text = $("i-text").value, trf = /^\s*(012|001) /m.test(text);
    const body = trf ? { trf: text, date: $("i-date").value, boards: numbers($("i-boards").value) }
      : { pairings: text, date: $("i-date").value };
    if (trf && $("i-control").value) body.control = $("i-control").value;
    if ($("i-round").value) body.round = +$("i-round").value;
    try {
      const got = await api(trf ? "/api/rounds/trf" : "/api/rounds", body);
      say("i-msg", "round " + got.round + ": " + got.pairings + " boards", true);
      current = got.round;
      await loadRounds();
      $("round").scrollIntoView({ block: "start" }); // the new round, its Start at hand
    } catch (err) { say("i-msg", err.message); }
  });
  $("s-game").addEventListener("change", loadStandings);
  $("p-file").addEventListener("change", async () => {
    const f = $("p-file").files[0];
    if (f) $("p-text").value = await f.text();
  });
  $("players-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = $("p-text").value;
    const body = /^\s*(012|001) /m.test(text) ? { trf: text } : { csv: text };
    try { const got = await api("/api/players", body); say("p-msg", got.players + " players", true); }
    catch (err) { say("p-msg", err.message); }
    loadPlayers();
  });
  $("robin-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { players: numbers($("o-players").value), boards: numbers($("o-boards").value),
      game: $("o-game").value };
    if ($("o-control").value) body.control = $("o-control").value;
    if ($("o-first").value) body.first_round = +$("o-first").value;
    if ($("o-rounds").value) body.rounds = +$("o-rounds").value;
    try {
      const got = await api("/api/rounds/robin", body);
      say("o-msg", "rounds " + got.rounds.join(", ") + " paired", true);
      current = got.rounds[0];
      await loadRounds();
    } catch (err) { say("o-msg", err.message); }
  });
  $("board-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const verb = $("b-verb").value, body = { board: +$("b-board").value };
    if (verb === "result") body.result = $("b-result").value;
    else body.side = $("b-side").value;
    if (verb === "late") body.minutes = +$("b-minutes").value;
    if (!(await askFirst(boardQuestion(body, verb), "Yes: " + verb))) return;
    try {
      const got = await api("/api/rounds/" + current + "/" + verb, body);
      say("b-msg", "board " + body.board + ": " + verb + (got.outcome ? ": " + got.outcome : " kept"), true);
    }
    catch (err) { say("b-msg", err.message); }
    await loadRound();
    loadStandings();
  });
  $("bye-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { player: +$("y-player").value, kind: $("y-kind").value };
    try { await api("/api/rounds/" + current + "/bye", body); say("y-msg", "bye kept", true); }
    catch (err) { say("y-msg", err.message); }
    await loadRound();
    loadStandings();
  });
  $("r-setup").addEventListener("click", () => roundAction("setup"));
  $("r-start").addEventListener("click", () => roundAction("start"));
}

(async () => {
  setup();
  await loadTournament();
  await loadRounds();
  loadStandings();
  loadPlayers();
  connect();
})();
