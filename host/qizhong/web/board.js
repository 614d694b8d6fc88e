// SPDX-License-Identifier: GPL-3.0-or-later
// One board: its card, the position, the moves with their clock times, the arbiter's actions.
"use strict";
const NO = Number(location.pathname.split("/").pop());
let detail = null;
let seenEvents = -1;
let pending = null;
let shownGame = null; // the game the players' form shows: the board's, until the arbiter picks

async function loadDetail() {
  detail = await api("/api/boards/" + NO);
  drawPosition(document.getElementById("position"), detail.position);
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
  document.getElementById("title").textContent = "board " + NO;
  document.getElementById("record").href = detail.record || "#";
  document.getElementById("record").hidden = !detail.record;
}

const baseRender = render;
render = function () {
  for (const key of [...boards.keys()]) if (key !== String(NO)) boards.delete(key);
  baseRender();
  renderAlerts(String(NO));
  const b = boards.get(String(NO));
  if (!b) return;
  if (b.view.events !== seenEvents) { // new events (or a restarted server caught up): reload
    seenEvents = b.view.events;
    clearTimeout(pending); pending = setTimeout(loadDetail, 50);
  }
  const names = colours(b.view);
  document.querySelectorAll("#pen-side option").forEach((o, i) => { o.textContent = names[i]; });
  document.querySelectorAll("[data-knock]").forEach((btn) => { btn.textContent = names[btn.dataset.knock]; });
  document.querySelectorAll("[data-result]").forEach((btn) => {
    if (btn.dataset.result !== "2") btn.textContent = names[btn.dataset.result] + " wins";
  });
};
window.onArbiter = () => { document.getElementById("controls").hidden = !arbiter; };

async function act(verb, body) {
  const err = document.getElementById("act-error");
  try { await api("/api/boards/" + NO + "/" + verb, body || {}); err.textContent = ""; }
  catch (e) { err.textContent = verb + ": " + e.message; }
}

function parseTime(text) {
  const parts = text.split(":").map(Number);
  if (parts.some(isNaN)) return null;
  return Math.round(parts.reduce((a, p) => a * 60 + p, 0) * 1000);
}

document.querySelectorAll("[data-act]").forEach((b) => { b.onclick = () => act(b.dataset.act); });
document.querySelectorAll("[data-knock]").forEach((b) => { b.onclick = () => act("knock", { side: Number(b.dataset.knock) }); });
document.querySelectorAll("[data-result]").forEach((b) => { b.onclick = () => act("finish", { result: Number(b.dataset.result) }); });
document.getElementById("penalty").onclick = () => act("penalty", {
  side: Number(document.getElementById("pen-side").value),
  ms: Math.round(Number(document.getElementById("pen-s").value) * 1000) });
document.getElementById("set").onclick = () => {
  const ms = parseTime(document.getElementById("set-ms").value);
  if (ms !== null) act("set", { side: Number(document.getElementById("pen-side").value), ms });
};
document.getElementById("move").onclick = async () => {
  const box = document.getElementById("move-text");
  await act("move", { text: box.value });
  if (!document.getElementById("act-error").textContent) box.value = "";
  loadDetail();
};
document.getElementById("config").onclick = () => act("config", { spec: document.getElementById("spec").value });
document.getElementById("players").onclick = () => act("players", {
  first: document.getElementById("p0").value, second: document.getElementById("p1").value,
  game: document.getElementById("game").value }).then(loadDetail);

connect();
loadDetail();
