// The judges' monitoring station: every table, the newest alerts first, a table's timeline,
// its calibration by clicks on a camera frame, and the access tokens.
"use strict";

const FLAGS = ["illegal_move", "premature_throw", "wrong_start", "throw_void"];
// Alerts with nothing to decide: a camera knocked off its calibration, a camera stalled or
// lost, a camera seeing the hall's light flicker. The judges act on the table (calibrate it
// again, check the camera, set its anti-flicker).
const NOTICES = ["camera_moved", "source", "camera_flicker"];
// Under it a roll is read with doubt: the tracker's MIN_ROLL_CONFIDENCE, put in the page by the server.
const ROLL_DOUBT_BELOW = Number(document.querySelector('meta[name="roll-doubt-below"]').content);
// What a roll with a die at the box's exit says, as the review's timeline says it: put in the page by the server.
const ROLL_AT_EXIT = document.querySelector('meta[name="roll-at-exit"]').content;
const tables = new Map(); // table id -> {row, card}
const alerts = new Map(); // "table:seq" -> alert element
// "table:flag_seq" -> decision record: one can arrive before its alert (a render of a state
// read before the decision adds the alert after it).
const decisions = new Map();
const refreshing = new Set();
let selected = null;
// Points clicked on the frame: the field's corners, and the outlines of the dice zones.
const CLICK_COLOURS = { corners: "#e07000", tray: "#00a050", box: "#2060e0" };
let clicks = { corners: [], tray: [], box: [] };

function describe(record) {
  if (record.event === "decision") return `${record.decision} on #${record.flag_seq} by ${record.judge}`;
  if (record.event === "table_stop") return `table ${record.state}${record.detail ? `: ${record.detail}` : ""}`;
  if (record.event === "camera_moved") return `camera moved since its calibration: ${record.detail} until it is back or calibrated again`;
  if (record.event === "camera_back") return "camera back where it was calibrated";
  if (record.event === "camera_flicker") return record.detail;
  if (record.event === "source") return `camera ${record.kind}${record.detail ? `: ${record.detail}` : ""}`;
  const who = record.player ? `${record.player} ` : "";
  const dice = record.dice ? ` ${record.dice.join("-")}` : "";
  const rules = (record.violations || []).map((v) => `${v.rule}: ${v.message}`).join("; ");
  // How surely the die counted lies so: a void on a doubtful reading is the judges' to check.
  const counted = record.event === "count_start" || record.event === "throw_void";
  const sure = counted && typeof record.confidence === "number" ? `, die read ${Math.round(record.confidence * 100)}% sure` : "";
  // A roll read with doubt (under the tracker's MIN_ROLL_CONFIDENCE) may hide a cocked die read flat.
  const doubt = record.event === "roll" && typeof record.confidence === "number" && record.confidence < ROLL_DOUBT_BELOW
    ? `, read only ${Math.round(record.confidence * 100)}% sure` : "";
  // A die at the box's exit: one leaning on the lip looks flat from above (the tracker names it).
  const atExit = record.event === "roll" && record.at_exit === true ? `, ${ROLL_AT_EXIT}` : "";
  return `${who}${record.event.replaceAll("_", " ")}${dice}${rules ? ` (${rules})` : record.rule ? ` (${record.rule})` : ""}${sure}${doubt}${atExit}`;
}

function addTable(row) {
  const card = el("article", { class: "table", "data-table": row.id });
  tables.set(row.id, { row, card });
  document.getElementById("tables").append(card);
  refresh(row.id);
}

// One refresh per table at a time; events arriving meanwhile are covered by the next.
function refresh(id) {
  if (refreshing.has(id)) return;
  refreshing.add(id);
  setTimeout(async () => {
    refreshing.delete(id);
    try {
      const [state, svg] = await Promise.all([api(`/api/tables/${id}/state`), api(`/api/tables/${id}/board.svg`)]);
      render(state, svg);
    } catch (error) {
      document.getElementById("status").textContent = error.message;
    }
  }, 30);
}

function render(state, svg) {
  const { row, card } = tables.get(state.table.id);
  Object.assign(row, state.table);
  const facts = [
    state.mover ? `to play: ${state.mover}` : "",
    state.dice ? `dice: ${state.dice.join("-")}` : "",
    state.clock ? `clock: ${state.clock}` : "",
    `pips: white ${state.pips.white}, black ${state.pips.black}`,
    state.score ? `score: white ${state.score.white}, black ${state.score.black}` : "",
  ].filter(Boolean);
  const board = el("div", { class: "board" });
  board.innerHTML = svg;
  card.className = `table${state.open_flags.length ? " flagged" : ""}`;
  card.replaceChildren(
    el("h2", {}, `${row.name}`, el("span", { class: `state ${row.state}` }, row.state)),
    board,
    el("div", { class: "facts" }, ...facts.map((f) => el("span", {}, f))),
    row.error ? el("div", { class: "error" }, row.error) : "",
    state.camera_moved ? el("div", { class: "error" }, `camera moved since its calibration: ${state.camera_moved}; calibrate the table again`) : "",
    state.camera_flicker ? el("div", { class: "error" }, state.camera_flicker) : "",
    el("div", {},
      el("button", { onclick: () => act(row.id, "start") }, "Start"),
      el("button", { onclick: () => act(row.id, "stop") }, "Stop"),
      el("button", { onclick: () => select(row.id) }, "Timeline & calibration"),
      el("a", { href: `/overlay/${row.id}`, target: "_blank" }, " overlay")),
  );
  for (const flag of [...state.open_flags].reverse()) addAlert(row.id, flag.detail);
}

async function act(id, what) {
  try {
    await api(`/api/tables/${id}/${what}`, { method: "POST" });
  } catch (error) {
    document.getElementById("status").textContent = error.message;
  }
  refresh(id);
}

function addAlert(tableId, record) {
  const key = `${tableId}:${record.seq}`;
  if (alerts.has(key)) return;
  const name = tables.get(tableId)?.row.name || `table ${tableId}`;
  const still = record.evidence?.still;
  const what = el("div", { class: "what" }, `${name}, ${clockText(record.time)}: ${describe(record)}`);
  // The buttons above the still: the still loading after them would move them under a
  // pointer already pressing one, and the click would be lost.
  const item = FLAGS.includes(record.event)
    ? el("li", { class: "alert", "data-key": key }, what,
      el("button", { class: "accept", onclick: () => decide(tableId, record.seq, "accept") }, "Accept"),
      el("button", { class: "correct", onclick: () => decide(tableId, record.seq, "correct") }, "Correct"),
      el("span", { class: "decision" }),
      still ? el("img", { src: `/api/tables/${tableId}/files/${still}`, alt: "the frame that shows it" }) : "")
    : el("li", { class: "alert notice", "data-key": key }, what);
  alerts.set(key, item);
  // Newest first: by the time the referee saw it, across tables.
  const list = document.getElementById("alerts");
  list.prepend(item);
  if (decisions.has(key)) decided(tableId, decisions.get(key));
}

async function decide(tableId, seq, decision) {
  try {
    // Shown from the answer too: the stream may not carry it (not yet subscribed, reconnecting).
    const stored = await api(`/api/tables/${tableId}/flags/${seq}/decision`, { json: { decision } });
    decided(tableId, stored.event);
  } catch (error) {
    document.getElementById("status").textContent = error.message;
  }
}

function decided(tableId, record) {
  const key = `${tableId}:${record.flag_seq}`;
  decisions.set(key, record);
  const item = alerts.get(key);
  if (!item) return;
  item.classList.add("decided");
  item.querySelectorAll("button").forEach((b) => b.remove());
  item.querySelector(".decision").textContent = `${record.decision}ed by ${record.judge}`;
}

function timelineLine(record) {
  const flag = FLAGS.includes(record.event);
  return el("li", { class: flag ? "flag" : "" }, `#${record.seq} ${clockText(record.time)} ${describe(record)}`);
}

async function select(id) {
  selected = id;
  clicks = { corners: [], tray: [], box: [] };
  const detail = document.getElementById("detail");
  detail.hidden = false;
  document.getElementById("detail-title").textContent = tables.get(id).row.name;
  const events = await api(`/api/tables/${id}/events?since=-1&limit=10000`);
  document.getElementById("timeline").replaceChildren(...events.map((e) => timelineLine(e.event)));
}

async function loadFrame() {
  const response = await fetch(`/api/tables/${selected}/frame.jpg`, { headers: { Authorization: `Bearer ${token}` } });
  const status = document.getElementById("calibration-status");
  if (!response.ok) { status.textContent = `no frame: ${response.status}`; return; }
  const image = await createImageBitmap(await response.blob());
  const canvas = document.getElementById("frame");
  canvas.width = image.width;
  canvas.height = image.height;
  canvas.image = image;
  clicks = { corners: [], tray: [], box: [] };
  drawClicks();
  status.textContent = "";
}

function clickPoint(event) {
  const canvas = event.target;
  const what = document.getElementById("click-what").value;
  const limit = what === "corners" ? 4 : 32;
  if (!canvas.image || clicks[what].length === limit) return;
  const box = canvas.getBoundingClientRect();
  const x = (event.clientX - box.left) * canvas.width / box.width;
  const y = (event.clientY - box.top) * canvas.height / box.height;
  clicks[what].push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
  drawClicks();
}

function clearClicks() {
  clicks[document.getElementById("click-what").value] = [];
  drawClicks();
}

// The frame with every outline clicked so far; the save buttons follow what is complete.
function drawClicks() {
  const canvas = document.getElementById("frame");
  if (!canvas.image) return;
  const context = canvas.getContext("2d");
  context.drawImage(canvas.image, 0, 0);
  context.lineWidth = 3;
  for (const [what, points] of Object.entries(clicks)) {
    context.strokeStyle = context.fillStyle = CLICK_COLOURS[what];
    context.beginPath();
    points.forEach(([x, y], i) => (i ? context.lineTo(x, y) : context.moveTo(x, y)));
    if (points.length === 4 || (what !== "corners" && points.length >= 3)) context.closePath();
    context.stroke();
    points.forEach(([x, y]) => context.fillRect(x - 3, y - 3, 6, 6));
  }
  document.getElementById("save-corners").disabled = clicks.corners.length !== 4;
  document.getElementById("save-zones").disabled = clicks.tray.length < 3 || clicks.box.length < 3;
}

async function saveCalibration(path, body) {
  const status = document.getElementById("calibration-status");
  try {
    const row = await api(`/api/tables/${selected}/calibration/${path}`, { json: body });
    // What the installer should know of the camera (one too low over the tray).
    status.textContent = ["calibrated", ...(row.warnings || [])].join("; ");
  } catch (error) {
    status.textContent = error.message;
  }
}

// The zones, and the tray floor's size when both sides are given (the server measures the
// camera's view of the floor from it and the tray's four corners).
function saveZones() {
  const body = { tray: clicks.tray, box: clicks.box };
  const sides = ["tray-length", "tray-width"].map((id) => Number(document.getElementById(id).value));
  if (sides.every((side) => side > 0)) body.tray_mm = sides;
  return saveCalibration("zones", body);
}

async function addNewTable(event) {
  event.preventDefault();
  const status = document.getElementById("new-table-status");
  try {
    const row = await api("/api/tables", { json: {
      name: document.getElementById("table-name").value,
      source: document.getElementById("table-source").value,
      variant: document.getElementById("table-variant").value,
    } });
    addTable(row);
    status.textContent = `${row.name} added: calibrate it, then start it`;
  } catch (error) {
    status.textContent = error.message;
  }
}

async function showTokens() {
  const rows = await api("/api/tokens");
  const when = (seconds) => new Date(seconds * 1000).toLocaleString();
  document.getElementById("tokens").replaceChildren(...rows.map((row) => el("tr", {},
    el("td", {}, row.id), el("td", {}, row.role), el("td", {}, row.name),
    el("td", {}, when(row.created_at)),
    el("td", {}, row.revoked_at ? `revoked ${when(row.revoked_at)}`
      : el("button", { onclick: () => revokeToken(row) }, "Revoke")))));
}

async function makeToken(event) {
  event.preventDefault();
  const name = document.getElementById("token-name").value;
  const role = document.getElementById("token-role").value;
  const shown = document.getElementById("new-token-shown");
  try {
    const made = await api("/api/tokens", { json: { name, role } });
    const first = tables.keys().next().value;
    const overlay = role === "viewer" && first !== undefined
      ? ` An overlay: ${location.origin}/overlay/${first}?token=${made.token}` : "";
    shown.textContent = `${made.role} token for ${made.name}: ${made.token}.${overlay}`;
  } catch (error) {
    shown.textContent = error.message;
  }
  showTokens();
}

async function revokeToken(row) {
  if (!confirm(`Revoke the ${row.role} token of ${row.name}?`)) return;
  try {
    await api(`/api/tokens/${row.id}`, { method: "DELETE" });
  } catch (error) {
    document.getElementById("new-token-shown").textContent = error.message;
  }
  showTokens();
}

function onEvent(message) {
  const { table_id: id, event: record } = message;
  if (!tables.has(id)) {
    api(`/api/tables/${id}`).then(addTable);
    return;
  }
  refresh(id);
  if (FLAGS.includes(record.event) || NOTICES.includes(record.event)) addAlert(id, record);
  if (record.event === "decision") decided(id, record);
  if (id === selected) document.getElementById("timeline").append(timelineLine(record));
}

async function start() {
  document.getElementById("load-frame").addEventListener("click", loadFrame);
  document.getElementById("frame").addEventListener("click", clickPoint);
  document.getElementById("clear-clicks").addEventListener("click", clearClicks);
  document.getElementById("save-corners").addEventListener("click",
    () => saveCalibration("corners", { corners: clicks.corners }));
  document.getElementById("save-zones").addEventListener("click", saveZones);
  document.getElementById("new-token").addEventListener("submit", makeToken);
  document.getElementById("new-table").addEventListener("submit", addNewTable);
  document.getElementById("access").addEventListener("toggle", (event) => {
    if (event.target.open) showTokens();
  });
  try {
    for (const row of await api("/api/tables")) addTable(row);
  } catch (error) {
    document.getElementById("status").textContent = `${error.message} (open /station?token=TOKEN)`;
    return;
  }
  stream("/ws/tables", onEvent);
}

start();
