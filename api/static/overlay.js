// The broadcast overlay of one table: board, dice, pip counts and score, redrawn on each
// event of the table's WebSocket stream.
"use strict";

const tableId = Number(location.pathname.split("/").pop());
const FACES = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];
let drawing = false;
let again = false;

async function draw() {
  if (drawing) { again = true; return; }
  drawing = true;
  try {
    const [state, svg] = await Promise.all([api(`/api/tables/${tableId}/state`), api(`/api/tables/${tableId}/board.svg`)]);
    document.getElementById("board").innerHTML = svg;
    document.getElementById("name").textContent = state.table.name;
    document.getElementById("dice").textContent = state.dice ? state.dice.map((d) => FACES[d]).join(" ") : "";
    document.getElementById("mover").textContent = state.mover ? `${state.mover} to play` : "";
    for (const side of ["white", "black"]) {
      document.getElementById(`pips-${side}`).textContent = `${state.pips[side]} pips`;
      document.getElementById(`score-${side}`).textContent = state.score ? state.score[side] : "";
    }
    document.getElementById("flag").textContent = state.open_flags.length ? "under review" : "";
    document.body.dataset.seq = state.last_seq;
    document.body.dataset.drawnAt = Date.now(); // for the test of how soon it follows
  } finally {
    drawing = false;
    if (again) { again = false; draw(); }
  }
}

draw();
stream(`/ws/tables/${tableId}`, draw);
