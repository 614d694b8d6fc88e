// SPDX-License-Identifier: GPL-3.0-or-later
// The spectators' page: the live boards (hall.js's cards, ticking), a round's pairings with
// their results, and the standings. It only reads: no login, no action, no alerts.
"use strict";
let wRound = 0; // the round whose pairings show: the newest, until a spectator picks one

async function loadEvent() {
  const t = await api("/api/tournament");
  if (t.name) { document.getElementById("event").textContent = t.name; document.title = t.name + " · 棋钟 live"; baseTitle = document.title; }
  document.getElementById("where").textContent = [t.site, t.start && t.end && t.start !== t.end ? t.start + " – " + t.end : t.start]
    .filter(Boolean).join(", ");
}

function td(tr, text, cls) {
  const c = document.createElement("td");
  c.textContent = text === undefined || text === null ? "" : String(text);
  if (cls) c.className = cls;
  tr.append(c);
  return c;
}

async function loadPairings() {
  const got = await api("/api/rounds");
  const nav = document.getElementById("w-rounds");
  nav.replaceChildren();
  if (!got.rounds.length) return;
  if (!wRound) wRound = got.rounds[got.rounds.length - 1].round;
  for (const r of got.rounds) {
    const b = document.createElement("button");
    b.textContent = "Round " + r.round; b.dataset.round = r.round;
    b.className = r.round === wRound ? "on" : "";
    b.onclick = () => { wRound = r.round; loadPairings(); };
    nav.append(b);
  }
  const round = await api("/api/rounds/" + wRound);
  document.getElementById("pairings-title").textContent = "Pairings, round " + wRound + (round.date ? ", " + round.date : "");
  const body = document.querySelector("#w-pairings tbody");
  body.replaceChildren();
  for (const r of round.boards) {
    const tr = document.createElement("tr");
    tr.dataset.board = r.board;
    td(tr, r.board, "num"); td(tr, r.first); td(tr, r.second); td(tr, r.game);
    td(tr, r.result || (r.state === "running" ? "playing" : ""), "result");
    body.append(tr);
  }
}

// The standings as the server ranks them (each game's tie-breaks, in its order), one table
// for each game the event plays.
async function loadStandings() {
  const box = document.getElementById("w-standings");
  const parts = [];
  for (const game of ["xiangqi", "go", "chess"]) {
    let got;
    try { got = await api("/api/standings?game=" + game); } catch (e) { continue; }
    if (!got.rows || !got.rows.length) continue;
    const h = document.createElement("h3");
    const done = got.rounds || [];
    h.textContent = game[0].toUpperCase() + game.slice(1) + (done.length ? ", after round " + done[done.length - 1] : "");
    const t = standingsTable(got);
    t.dataset.game = game;
    parts.push(h, t);
  }
  if (parts.length) box.replaceChildren(...parts);
}

let wPending = null;
function wSoon() {
  if (wPending) return;
  wPending = setTimeout(() => { wPending = null; loadPairings().catch(() => {}); loadStandings(); }, 500);
}

const renderCards = render;
render = function () { renderCards(); wSoon(); };

loadEvent();
loadPairings();
loadStandings();
