// SPDX-License-Identifier: GPL-3.0-or-later
// The hall: every board at a glance, its times ticking from the clock's own.
"use strict";

function card(v) {
  const a = document.createElement("a");
  a.href = v.server ? v.url + "board/" + v.no : "/board/" + v.no;
  a.className = "card"; a.id = "board-" + v.key;
  a.innerHTML = '<div class="top"><span class="no"></span><span class="state"></span>' +
    '<span class="link"></span></div><div class="sides">' +
    [0, 1].map((s) => '<div class="side s' + s + '"><div class="name"></div><div class="time"></div></div>').join("") +
    '</div><div class="badges"></div>';
  return a;
}

function render() {
  const grid = document.getElementById("boards");
  for (const [key, b] of sortedBoards()) {
    const v = b.view;
    let el = document.getElementById("board-" + key);
    if (!el) { el = card(v); grid.append(el); }
    const names = colours(v);
    el.querySelector(".no").textContent = (v.server ? v.server + " " : "") + "#" + v.no;
    el.querySelector(".state").textContent = v.state;
    el.querySelector(".link").textContent = v.link === "up" ? "" : "⚠ " + v.link;
    el.classList.toggle("lost", v.link !== "up");
    el.classList.toggle("alerting", v.alerts.length > 0);
    for (const s of [0, 1]) {
      const side = el.querySelector(".s" + s);
      side.classList.toggle("run", v.run === s && v.state === "running");
      side.classList.toggle("flagged", v.flag[s]);
      side.querySelector(".name").textContent = names[s] + (v.players[s] ? " · " + v.players[s] : "");
    }
    const badges = [["moves", "moves " + v.moves[0] + "·" + v.moves[1]]];
    if (v.flag[0] || v.flag[1]) badges.push(["bad flag", "flag"]);
    if (v.knocks) badges.push(["bad knock", "knocks " + v.knocks]);
    if (v.held >= 0) badges.push(["bad held", names[v.held] + " lever held"]);
    const res = resultText(v);
    if (res) badges.push(["result", res]);
    el.querySelector(".badges").innerHTML = badges.map(([c, t]) => '<span class="' + c + '"></span>').join("");
    [...el.querySelectorAll(".badges span")].forEach((sp, i) => { sp.textContent = badges[i][1]; });
  }
  tick();
  renderAlerts();
}

function tick() {
  for (const [key, b] of boards) {
    const el = document.getElementById("board-" + key);
    if (!el) continue;
    for (const s of [0, 1]) el.querySelector(".s" + s + " .time").textContent = fmt(shownLeft(b, s));
  }
}

setupLogin();
setInterval(tick, 100);
if (!window.BOARD_PAGE) connect();
