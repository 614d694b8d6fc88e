// SPDX-License-Identifier: GPL-3.0-or-later
// The pages' one call to the server: JSON in, JSON out, the server's error as
// the thrown message (docs/server.md). Loaded before each page's own script.
"use strict";

async function api(path, body) {
  const r = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

// A key for one action (one click): every send of that action carries it (docs/server.md).
function newKey() {
  const a = new Uint8Array(12);
  crypto.getRandomValues(a);
  return "page-" + Array.from(a, (x) => x.toString(16).padStart(2, "0")).join("");
}

// An action that changes something: POSTed with its idempotency key (the Idempotency-Key
// header), sent again with the same key while the server or the clock is away (no answer,
// or 503) for up to 30 s, so an action whose answer was lost is applied once. ``onRetry``
// hears each wait.
async function apiKept(path, body, onRetry) {
  const key = newKey();
  for (let i = 0; ; i++) {
    let r = null;
    try {
      r = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
    } catch (e) { r = null; }
    if ((r === null || r.status === 503) && i < 30) {
      if (onRetry) onRetry(i + 1);
      await new Promise((ok) => setTimeout(ok, 1000));
      continue;
    }
    if (r === null) throw new Error("the server is away");
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  }
}
