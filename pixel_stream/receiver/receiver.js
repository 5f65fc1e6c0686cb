// Receiver page of a pixel session: plays the WebRTC stream 1:1 and forwards input.
//
// Pixel-only by design, like a Citrix session with clipboard and drive mapping disabled:
// a local paste is swallowed (never read, never sent), nothing is ever written to the
// local clipboard, and dropped files go nowhere. The server enforces the same; the page
// additionally runs under a Permissions-Policy that denies it clipboard access.

import { Lossless } from "./lossless.js";

const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const forcedViewOnly = params.get("view_only") === "1";
// stats=0 hides the live figures (round trip, codec): a window whose pixels never change
// while the session's screen does not (what an agent's screenshots need)
const showStats = params.get("stats") !== "0";
const storedId = sessionStorage.getItem("pixelStreamClientId");
const clientId = params.get("client_id") || storedId || "";

const video = document.getElementById("screen");
const lossless = new Lossless(document.getElementById("tiles"), (rect) => {
  if (state.lossless && state.lossless.readyState === "open") {
    state.lossless.send(JSON.stringify({ t: "resend", ...rect }));
  }
});
const ui = {
  state: document.getElementById("state"),
  role: document.getElementById("role"),
  latency: document.getElementById("latency"),
  codec: document.getElementById("codec"),
  take: document.getElementById("take"),
  notice: document.getElementById("notice"),
};

if (!showStats) { ui.latency.hidden = true; ui.codec.hidden = true; }

const state = {
  ws: null, pc: null, channel: null, role: "viewer", clientId: clientId,
  lossless: null, rttMs: null, width: 0, height: 0, ended: false, reconnectDelay: 500,
  timeline: {},  // performance.now() of each connection stage, for diagnostics
};
const mark = (name) => { if (!(name in state.timeline)) state.timeline[name] = performance.now(); };
window.pixelStream = { state, video, send, connect, lossless };

function setPill(el, text, cls) {
  el.textContent = text;
  el.className = "pill" + (cls ? " " + cls : "");
}

// The connection's strength, as a Citrix receiver shows it: a word that changes only when
// the round trip crosses a band (the exact figure is the pill's tooltip). A figure that
// changed every second would repaint the window every second, so two screenshots of one
// settled screen would differ.
function showConnection(rttMs) {
  const [word, cls] = rttMs < 50 ? ["Excellent", "ok"] : (rttMs < 150 ? ["Good", "warn"] : ["Poor", "bad"]);
  ui.latency.title = `round trip of the input channel: ${rttMs.toFixed(1)} ms`;
  if (ui.latency.textContent !== word) setPill(ui.latency, word, cls);
}

function notice(text) {
  ui.notice.textContent = text;
  clearTimeout(notice.timer);
  notice.timer = setTimeout(() => { ui.notice.textContent = ""; }, 4000);
}

function setRole(role) {
  state.role = role;
  const controlling = role === "controller" && !forcedViewOnly && !state.ended;
  if (state.ended) setPill(ui.role, "no session", "");
  else setPill(ui.role, controlling ? "in control" : "view only", controlling ? "ok" : "warn");
  video.classList.toggle("viewonly", !controlling);
  ui.take.hidden = controlling || forcedViewOnly;
}

function canSend() {
  return state.role === "controller" && !forcedViewOnly &&
    state.channel && state.channel.readyState === "open";
}

function send(message) {
  if (state.channel && state.channel.readyState === "open") {
    state.channel.send(JSON.stringify(message));
    return true;
  }
  return false;
}

function wsUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}?token=${encodeURIComponent(token)}`;
}

// -- connection ------------------------------------------------------------------------
async function connect() {
  setPill(ui.state, "connecting…", "warn");
  mark("connect");
  const pc = new RTCPeerConnection({ iceServers: [] });
  state.pc = pc;
  pc.addTransceiver("video", { direction: "recvonly" });
  const channel = pc.createDataChannel("input", { ordered: true });
  state.channel = channel;
  channel.onmessage = (e) => onChannelMessage(e.data);
  channel.onopen = () => setRole(state.role);
  // Exact tiles need the RTP timestamp of each presented frame to be ordered against the
  // video (requestVideoFrameCallback); without it the page shows the video only.
  lossless.reset();
  if ("requestVideoFrameCallback" in video) {
    const tiles = pc.createDataChannel("lossless", { ordered: true });
    tiles.binaryType = "arraybuffer";
    tiles.onmessage = (e) => lossless.onMessage(e.data);
    tiles.onclose = () => { if (state.lossless === tiles) lossless.reset(); };
    state.lossless = tiles;
  }
  pc.ontrack = (e) => {
    const receiver = e.receiver;
    // Show frames as soon as they are decoded: no extra playout delay.
    if ("playoutDelayHint" in receiver) receiver.playoutDelayHint = 0;
    if ("jitterBufferTarget" in receiver) receiver.jitterBufferTarget = 0;
    video.srcObject = e.streams[0] || new MediaStream([e.track]);
    if ("requestVideoFrameCallback" in video) {
      video.requestVideoFrameCallback(() => mark("first_frame_presented"));
      const onFrame = (now, meta) => {
        if (state.pc !== pc) return;
        if (typeof meta.rtpTimestamp !== "number") {
          // no way to order tiles against frames: no tiles at all
          if (state.lossless) { state.lossless.close(); state.lossless = null; }
          lossless.reset();
          return;
        }
        lossless.onVideoFrame(meta.rtpTimestamp);
        video.requestVideoFrameCallback(onFrame);
      };
      video.requestVideoFrameCallback(onFrame);
    }
  };
  pc.onconnectionstatechange = () => {
    const s = pc.connectionState;
    mark("pc_" + s);
    setPill(ui.state, s, s === "connected" ? "ok" : (s === "failed" ? "bad" : "warn"));
  };
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
  // The offer goes out at once, without waiting for our ICE candidates: the server
  // cannot use the browser's (mDNS-hidden) host candidates anyway and learns our address
  // from our connectivity checks to its candidates.
  mark("offer");

  const ws = new WebSocket(wsUrl("/rtc"));
  state.ws = ws;
  ws.onopen = () => mark("ws_open") || ws.send(JSON.stringify({
    type: "offer", sdp: pc.localDescription.sdp,
    client_id: state.clientId || undefined, view_only: forcedViewOnly,
  }));
  ws.onmessage = async (e) => {
    const msg = JSON.parse(e.data);
    if (msg.type === "answer") {
      mark("answer");
      state.clientId = msg.client_id;
      sessionStorage.setItem("pixelStreamClientId", msg.client_id);
      state.width = msg.width; state.height = msg.height;
      setPill(ui.codec, msg.codec);
      setRole(msg.role);
      await pc.setRemoteDescription({ type: "answer", sdp: msg.sdp });
      state.reconnectDelay = 500;
    } else if (msg.type === "role") {
      setRole(msg.role);
    } else if (msg.type === "ended") {
      state.ended = true;
      setPill(ui.state, "session ended: " + msg.reason, "bad");
      setRole("viewer");  // nobody controls an ended session: the pill must not say so
    } else if (msg.type === "error") {
      notice(msg.message);
    }
  };
  ws.onclose = (e) => {
    if (state.ended) return;
    setPill(ui.state, e.code === 1006 && !state.width ? "rejected" : "reconnecting…", "bad");
    teardown();
    // Reconnect with the same client id: within the grace the seat is still ours.
    setTimeout(connect, state.reconnectDelay);
    state.reconnectDelay = Math.min(state.reconnectDelay * 2, 10000);
  };
}

function teardown() {
  if (state.pc) { try { state.pc.close(); } catch (err) { /* already closed */ } }
  state.pc = null; state.channel = null; state.lossless = null;
  lossless.reset();
}

function onChannelMessage(data) {
  let msg;
  try { msg = JSON.parse(data); } catch (err) { return; }
  if (msg.t === "pong" && typeof msg.ts === "number") {
    state.rttMs = performance.now() - msg.ts;
    showConnection(state.rttMs);
  } else if (msg.t === "role") {
    setRole(msg.role);
  } else if (msg.t === "error") {
    notice(msg.message);
  }
}

setInterval(() => send({ t: "ping", id: Date.now(), ts: performance.now() }), 1000);

// -- 1:1 display -----------------------------------------------------------------------
function fitOneToOne() {
  if (!video.videoWidth) return;
  const dpr = window.devicePixelRatio || 1;
  video.style.width = `${video.videoWidth / dpr}px`;
  video.style.height = `${video.videoHeight / dpr}px`;
  const tiles = lossless.canvas;
  tiles.style.width = video.style.width;
  tiles.style.height = video.style.height;
  lossless.resize(video.videoWidth, video.videoHeight);
}
video.addEventListener("loadedmetadata", () => { mark("first_frame"); fitOneToOne(); });
video.addEventListener("resize", fitOneToOne);
window.addEventListener("resize", fitOneToOne);

// -- input -----------------------------------------------------------------------------
function point(e) {
  const rect = video.getBoundingClientRect();
  const sx = (video.videoWidth || rect.width) / rect.width;
  const sy = (video.videoHeight || rect.height) / rect.height;
  const maxX = (video.videoWidth || rect.width) - 1;
  const maxY = (video.videoHeight || rect.height) - 1;
  return {
    x: Math.max(0, Math.min(maxX, Math.floor((e.clientX - rect.left) * sx))),
    y: Math.max(0, Math.min(maxY, Math.floor((e.clientY - rect.top) * sy))),
  };
}
const BUTTONS = { 0: 1, 1: 2, 2: 3, 3: 8, 4: 9 };

video.addEventListener("pointermove", (e) => {
  if (!canSend()) return;
  const p = point(e);
  send({ t: "move", x: p.x, y: p.y });
});
video.addEventListener("pointerdown", (e) => {
  video.focus();
  if (!canSend() || !(e.button in BUTTONS)) return;
  e.preventDefault();
  video.setPointerCapture(e.pointerId);
  const p = point(e);
  send({ t: "button", button: BUTTONS[e.button], down: true, x: p.x, y: p.y });
});
video.addEventListener("pointerup", (e) => {
  if (!canSend() || !(e.button in BUTTONS)) return;
  e.preventDefault();
  const p = point(e);
  send({ t: "button", button: BUTTONS[e.button], down: false, x: p.x, y: p.y });
});
video.addEventListener("contextmenu", (e) => e.preventDefault());

let wheelX = 0, wheelY = 0;
video.addEventListener("wheel", (e) => {
  e.preventDefault();
  if (!canSend()) return;
  const unit = e.deltaMode === 1 ? 3 : (e.deltaMode === 2 ? 0.1 : 100);
  wheelX += e.deltaX / unit; wheelY += e.deltaY / unit;
  const dx = Math.trunc(wheelX), dy = Math.trunc(wheelY);
  if (!dx && !dy) return;
  wheelX -= dx; wheelY -= dy;
  const p = point(e);
  send({ t: "wheel", dx, dy, x: p.x, y: p.y });
}, { passive: false });

// Which character a key makes is read from keydown only for the keys of a standard
// keyboard (their DOM code says which): whatever the local layout, the browser names
// them correctly. Any other key making a character (no code, or an unusual one such as
// F24 or Lang5: e.g. a keycode that the X keymap gained or changed after the browser
// started, which is how X input tools type characters missing from the layout) may be
// named from a stale keymap on keydown, or not at all ("\u0000"); its keypress, which
// comes when the keydown is not cancelled, has the right character. Such a key is sent
// as a tap of that character when its keypress comes, and its keyup is swallowed.
const STANDARD_CODE = /^(Key[A-Z]|Digit[0-9]|Numpad.+|Space|Minus|Equal|BracketLeft|BracketRight|Backslash|Semicolon|Quote|Backquote|Comma|Period|Slash|IntlBackslash)$/;
const deferred = (e) => !STANDARD_CODE.test(e.code) &&
  (e.key.length === 1 || e.key === "Unidentified") &&
  !(e.ctrlKey || e.altKey || e.metaKey);

function onKey(e, down) {
  if (document.activeElement !== video || e.isComposing) return;
  e.stopPropagation();
  if (deferred(e)) {
    if (!down) e.preventDefault();
    return;  // keydown: let the keypress come; keyup: the tap already went
  }
  e.preventDefault();
  if (!canSend()) return;
  send({ t: "key", key: e.key, code: e.code, down });
}
function onKeypress(e) {
  if (document.activeElement !== video) return;
  e.preventDefault();
  e.stopPropagation();
  if (e.key.length === 0 || e.key === "\u0000" || e.key === "Unidentified" || !canSend()) return;
  send({ t: "key", key: e.key, code: "", down: true });
  send({ t: "key", key: e.key, code: "", down: false });
}
window.addEventListener("keydown", (e) => onKey(e, true), true);
window.addEventListener("keyup", (e) => onKey(e, false), true);
window.addEventListener("keypress", onKeypress, true);
window.addEventListener("blur", () => { if (canSend()) send({ t: "release_all" }); });

// -- no clipboard, no file transfer ----------------------------------------------------
for (const type of ["paste", "copy", "cut"]) {
  document.addEventListener(type, (e) => {
    e.preventDefault();
    e.stopImmediatePropagation();
    if (type === "paste") notice("Clipboard is disabled in this session.");
  }, true);
}
for (const type of ["dragover", "drop"]) {
  document.addEventListener(type, (e) => {
    e.preventDefault();
    if (type === "drop") notice("File transfer is disabled in this session.");
  }, true);
}

ui.take.addEventListener("click", () => {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) {
    state.ws.send(JSON.stringify({ type: "take_control" }));
  }
});

setRole("viewer");
connect();
