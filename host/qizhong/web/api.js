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
