// Latency probes injected into the receiver page (ours) or the noVNC bench page (theirs).
// Both measure the same thing: from the moment the page sends a click on the patch to the
// moment the patch's new colour is visible in what the page displays. Ours is checked on
// every decoded video frame (requestVideoFrameCallback); noVNC draws into a canvas, so
// that canvas is checked after every WebSocket message and on a 4 ms timer.
(() => {
  const probeCanvas = document.createElement("canvas");
  probeCanvas.width = 1; probeCanvas.height = 1;
  const probeCtx = probeCanvas.getContext("2d", { willReadFrequently: true });

  function pixelOf(source, x, y) {
    probeCtx.drawImage(source, x, y, 1, 1, 0, 0, 1, 1);
    const d = probeCtx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2]];
  }
  function differs(a, b) {
    return Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) > 60;
  }
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  // Wait until `check()` returns true; `arm(fire)` registers how often to check.
  function waitChange(arm, check, timeoutMs) {
    return new Promise((resolve) => {
      let done = false;
      const finish = (value) => { if (!done) { done = true; resolve(value); } };
      setTimeout(() => finish(null), timeoutMs);
      arm(() => { if (!done && check()) finish(performance.now()); return done; });
    });
  }

  window.pixelBench = {
    // ---- ours ---------------------------------------------------------------------
    oursFirstFrame() {
      // Marked by the receiver itself on the first presented frame (ms since navigation).
      return pixelStream.state.timeline.first_frame_presented ?? null;
    },
    async oursClicks(x, y, px, py, trials, gapMs) {
      const v = pixelStream.video;
      const out = [];
      for (let i = 0; i < trials; i++) {
        const before = pixelOf(v, px, py);
        const t0 = performance.now();
        pixelStream.send({ t: "button", button: 1, down: true, x, y });
        pixelStream.send({ t: "button", button: 1, down: false, x, y });
        const t1 = await waitChange(
          (fire) => { const cb = () => { if (!fire()) v.requestVideoFrameCallback(cb); };
                      v.requestVideoFrameCallback(cb); },
          () => differs(pixelOf(v, px, py), before), 2000);
        out.push(t1 === null ? null : t1 - t0);
        await sleep(gapMs);
      }
      return out;
    },
    async oursType(text, perSecond) {
      for (const ch of text) {
        pixelStream.send({ t: "key", key: ch, code: "", down: true });
        pixelStream.send({ t: "key", key: ch, code: "", down: false });
        await sleep(1000 / perSecond);
      }
    },
    async oursBytes() {
      const stats = await pixelStream.state.pc.getStats();
      let bytes = 0;
      stats.forEach((s) => { if (s.type === "transport") bytes += s.bytesReceived || 0; });
      if (!bytes) stats.forEach((s) => { if (s.type === "candidate-pair" && s.nominated) bytes += s.bytesReceived || 0; });
      return bytes;
    },
    // ---- noVNC --------------------------------------------------------------------
    novncFirstFrame() {
      return window.novncFirstFrame;
    },
    async novncClicks(x, y, px, py, trials, gapMs) {
      const rfb = window.rfb, canvas = rfb._canvas, RFB = window.RFB;
      const out = [];
      for (let i = 0; i < trials; i++) {
        const before = pixelOf(canvas, px, py);
        const t0 = performance.now();
        RFB.messages.pointerEvent(rfb._sock, x, y, 1);
        RFB.messages.pointerEvent(rfb._sock, x, y, 0);
        const t1 = await waitChange(
          (fire) => { window.novncOnMessage = fire;
                      const tick = () => { if (!fire()) setTimeout(tick, 0); }; tick(); },
          () => differs(pixelOf(canvas, px, py), before), 2000);
        window.novncOnMessage = null;
        out.push(t1 === null ? null : t1 - t0);
        await sleep(gapMs);
      }
      return out;
    },
    async novncType(text, perSecond) {
      const rfb = window.rfb, RFB = window.RFB;
      for (const ch of text) {
        const keysym = ch.codePointAt(0);
        RFB.messages.keyEvent(rfb._sock, keysym, 1);
        RFB.messages.keyEvent(rfb._sock, keysym, 0);
        await sleep(1000 / perSecond);
      }
    },
    novncBytes() { return window.novncBytes; },
  };
})();
