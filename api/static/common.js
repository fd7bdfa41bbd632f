// Shared by the station and the overlay: the token, and calls to the API with it.
"use strict";

const token = (() => {
  const fromUrl = new URLSearchParams(location.search).get("token");
  if (fromUrl) localStorage.setItem("nardy-token", fromUrl);
  const found = fromUrl || localStorage.getItem("nardy-token") || "";
  // Reads by <img> and links (stills, clips, reports) carry the token as a cookie.
  document.cookie = `token=${encodeURIComponent(found)}; path=/; SameSite=Strict`;
  return found;
})();

async function api(path, options = {}) {
  const headers = { Authorization: `Bearer ${token}`, ...(options.headers || {}) };
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    options = { ...options, method: options.method || "POST", body: JSON.stringify(options.json) };
  }
  const response = await fetch(path, { ...options, headers });
  if (!response.ok) {
    let detail = response.statusText;
    try { detail = (await response.json()).detail; } catch (_) { /* not JSON */ }
    throw new Error(`${response.status}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  }
  const type = response.headers.get("content-type") || "";
  return type.includes("json") ? response.json() : response.text();
}

// A WebSocket that reconnects, asking for what it missed when it can.
function stream(path, onEvent) {
  let last = null;
  const open = () => {
    const since = last !== null && path.match(/\/ws\/tables\/\d+$/) ? `&since=${last}` : "";
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}?token=${encodeURIComponent(token)}${since}`;
    const socket = new WebSocket(url);
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      last = data.seq;
      onEvent(data);
    };
    // A token refused (or revoked) stays refused: retrying would only knock on the door.
    socket.onclose = (event) => {
      if (event.code !== 4401) setTimeout(open, 1000);
      else if (document.getElementById("status")) {
        document.getElementById("status").textContent = "the token was refused or revoked: open the page with a valid one";
      }
    };
  };
  open();
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

function clockText(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const m = Math.floor(seconds / 60), s = (seconds % 60).toFixed(1).padStart(4, "0");
  return `${m}:${s}`;
}
