// SPDX-License-Identifier: GPL-3.0-or-later
// The hall: every board at a glance, its times ticking from the clock's own.
"use strict";

function card(v) {
  const a = document.createElement("a");
  a.href = v.server ? v.url + "board/" + v.no : "/board/" + v.no;
  a.className = "card"; a.id = "board-" + v.key;
  a.innerHTML = '<div class="top"><span class="no"></span><span class="state"></span>' +
    '<span class="link"></span></div><div class="sides">' +
    [0, 1].map((s) => '<div class="side s' + s + '"><div class="name"><span class="colour"></span> ' +
      '<span class="player"></span></div><div class="time"></div><div class="lever"></div></div>').join("") +
    '</div><div class="badges"></div>';
  return a;
}

// A board the arbiter should look at now: an alert not yet acknowledged, a clock
// not connected, a clock knocked over, a lever held down.
function needsAttention(v) {
  return liveAlerts(v).length > 0 || v.link !== "up" || v.state === "knocked" || v.held >= 0;
}

// Which boards get a card: the board page shows its own; the hall, all of them, or
// with "needs attention" ticked only those.
function wanted(key, v) {
  if (window.BOARD_PAGE) return key === String(NO);
  const only = document.getElementById("attention");
  return !(only && only.checked) || needsAttention(v);
}

function stateText(v) {
  if (v.state === "knocked") {
    const names = colours(v);
    return v.knocker === 0 || v.knocker === 1 ? names[v.knocker] + " knocked" : "knocked: who?";
  }
  return v.state;
}

function drawCard(el, v) {
  const names = colours(v);
  el.querySelector(".no").textContent = (v.server ? v.server + " " : "") + "#" + v.no;
  el.querySelector(".state").textContent = stateText(v);
  el.querySelector(".link").textContent = v.link === "up" ? "" : "⚠ " + v.link;
  el.classList.toggle("lost", v.link !== "up");
  el.classList.toggle("alerting", liveAlerts(v).length > 0);
  el.classList.toggle("attention", needsAttention(v));
  for (const s of [0, 1]) {
    const side = el.querySelector(".s" + s);
    side.classList.toggle("run", v.run === s && v.state === "running");
    side.classList.toggle("flagged", v.flag[s]);
    // The colour, then the whole name (wrapped, never cut: hall.css); on a hall board the
    // first player's lever is the left one (docs/server.md, "Levers").
    side.querySelector(".colour").textContent = names[s];
    side.querySelector(".player").textContent = v.players[s] || "";
    side.querySelector(".name").title = names[s] + (v.players[s] ? " · " + v.players[s] : "");
    side.querySelector(".lever").textContent = s === 0 ? "left lever" : "right lever";
  }
  const badges = [["moves", "moves " + v.moves[0] + "·" + v.moves[1]]];
  if (v.flag[0] || v.flag[1]) badges.push(["bad flag", "flag"]);
  if (v.knocks) badges.push(["bad knock", "knocks " + v.knocks]);
  if (v.held >= 0) badges.push(["bad held", names[v.held] + " lever held"]);
  const res = resultText(v);
  if (res) badges.push(["result", res]);
  el.querySelector(".badges").innerHTML = badges.map(([c]) => '<span class="' + c + '"></span>').join("");
  [...el.querySelectorAll(".badges span")].forEach((sp, i) => { sp.textContent = badges[i][1]; });
}

function render() {
  const grid = document.getElementById("boards");
  let attention = 0;
  for (const [key, b] of sortedBoards()) {
    const v = b.view;
    if (needsAttention(v)) attention++;
    let el = document.getElementById("board-" + key);
    if (!wanted(key, v)) { if (el) el.hidden = true; continue; }
    if (!el) { el = card(v); grid.append(el); }
    el.hidden = false;
    drawCard(el, v);
  }
  for (const el of [...grid.children]) { // boards the server no longer has (after a restart)
    if (!boards.has(el.id.slice("board-".length))) el.remove();
  }
  const count = document.getElementById("attention-n");
  if (count) count.textContent = "(" + attention + ")";
  tick();
  renderAlerts(window.BOARD_PAGE ? String(NO) : undefined);
}

function tick() {
  const stale = link.lostAt !== null;
  for (const [key, b] of boards) {
    const el = document.getElementById("board-" + key);
    if (!el) continue;
    el.classList.toggle("stale", stale);
    for (const s of [0, 1]) el.querySelector(".s" + s + " .time").textContent = fmt(shownLeft(b, s));
  }
  document.body.dataset.ticks = String(Number(document.body.dataset.ticks || 0) + 1);
}

// The hall's own switches: "needs attention" (this visit only) and the compact view
// (remembered in this browser, like the sound).
function setupView() {
  const only = document.getElementById("attention");
  if (only) only.onchange = render;
  const compact = document.getElementById("compact");
  if (compact) {
    compact.checked = prefs.get("compact") === "on";
    document.body.classList.toggle("compact", compact.checked);
    compact.onchange = () => {
      prefs.set("compact", compact.checked ? "on" : "off");
      document.body.classList.toggle("compact", compact.checked);
    };
  }
}

setupLogin();
setupSound();
setupView();
setInterval(tick, 100);
if (!window.BOARD_PAGE) connect();
