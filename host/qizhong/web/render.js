// SPDX-License-Identifier: GPL-3.0-or-later
// Positions drawn as SVG, one renderer per game kind (a third kind adds its own).
"use strict";
const RENDERERS = {};

const XQ_NAMES = { r: "车", n: "马", b: "象", a: "士", k: "将", c: "炮", p: "卒",
  R: "车", N: "马", B: "相", A: "仕", K: "帅", C: "炮", P: "兵" };

RENDERERS.xiangqi = function (pos) {
  const S = 40, W = 8 * S, H = 9 * S, M = 30;
  let g = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + (W + 2 * M) + " " + (H + 2 * M) +
    '" class="xiangqi"><rect width="100%" height="100%" fill="#f0d9a0"/><g transform="translate(' + M + "," + M + ')" stroke="#5a3a1a" fill="none">';
  for (let r = 0; r < 10; r++) g += '<line x1="0" y1="' + r * S + '" x2="' + W + '" y2="' + r * S + '"/>';
  for (let f = 0; f < 9; f++) {
    if (f === 0 || f === 8) g += '<line x1="' + f * S + '" y1="0" x2="' + f * S + '" y2="' + H + '"/>';
    else g += '<line x1="' + f * S + '" y1="0" x2="' + f * S + '" y2="' + 4 * S + '"/><line x1="' + f * S + '" y1="' + 5 * S + '" x2="' + f * S + '" y2="' + H + '"/>';
  }
  for (const y of [0, 7 * S]) g += '<line x1="' + 3 * S + '" y1="' + y + '" x2="' + 5 * S + '" y2="' + (y + 2 * S) + '"/><line x1="' + 5 * S + '" y1="' + y + '" x2="' + 3 * S + '" y2="' + (y + 2 * S) + '"/>';
  g += "</g>";
  const rows = pos.fen.split(" ")[0].split("/");
  rows.forEach((row, r) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { f += Number(ch); continue; }
      const red = ch === ch.toUpperCase(), x = M + f * S, y = M + r * S;
      g += '<g class="piece" data-piece="' + ch + '"><circle cx="' + x + '" cy="' + y + '" r="17" fill="#fbeecb" stroke="' + (red ? "#b00" : "#222") + '" stroke-width="2"/>' +
        '<text x="' + x + '" y="' + (y + 7) + '" text-anchor="middle" font-size="20" fill="' + (red ? "#b00" : "#222") + '">' + XQ_NAMES[ch] + "</text></g>";
      f++;
    }
  });
  return g + "</svg>";
};

RENDERERS.go = function (pos, marks) {
  const n = pos.size || 19, S = 24, M = 24, W = (n - 1) * S;
  let g = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + (W + 2 * M) + " " + (W + 2 * M) +
    '" class="go"><rect width="100%" height="100%" fill="#dcb35c"/><g transform="translate(' + M + "," + M + ')" stroke="#333">';
  for (let i = 0; i < n; i++) g += '<line x1="0" y1="' + i * S + '" x2="' + W + '" y2="' + i * S + '"/><line x1="' + i * S + '" y1="0" x2="' + i * S + '" y2="' + W + '"/>';
  for (const [c, colour] of pos.stones || []) {
    g += '<circle class="stone" cx="' + c[0] * S + '" cy="' + c[1] * S + '" r="11" fill="' + colour + '"/>';
  }
  // Stones marked dead after play (GO-6): a red cross on each, its point named (D4).
  for (const vertex of (marks && marks.dead) || []) {
    const col = "ABCDEFGHJKLMNOPQRST".indexOf(String(vertex)[0]), row = n - Number(String(vertex).slice(1));
    if (col < 0 || col >= n || !(row >= 0 && row < n)) continue;
    const x = col * S, y = row * S, d = 7;
    g += '<g class="dead-mark" data-vertex="' + vertex + '"><line x1="' + (x - d) + '" y1="' + (y - d) + '" x2="' + (x + d) +
      '" y2="' + (y + d) + '"/><line x1="' + (x + d) + '" y1="' + (y - d) + '" x2="' + (x - d) + '" y2="' + (y + d) + '"/></g>';
  }
  return g + "</g></svg>";
};

// Chess: the server sends python-chess's own SVG (rules/chess.py's svg(): last move and
// check marked), made from the moves it checked, never from a page's text.
RENDERERS.chess = function (pos) {
  return '<div class="chess" data-fen="' + pos.fen.replace(/"/g, "") + '">' + pos.svg + "</div>";
};

function drawPosition(el, pos, marks) {
  const fn = RENDERERS[pos.kind];
  el.innerHTML = fn ? fn(pos, marks) : "<p>(no drawing for " + pos.kind + " yet)</p>";
}
