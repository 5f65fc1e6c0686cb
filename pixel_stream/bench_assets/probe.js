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

  // A pixel of the video's current frame, read from the decoded frame itself (WebCodecs):
  // drawImage() first converts the whole frame to RGB, about 5 ms per new 1280x800 frame in
  // software, which would count the probe's own work as latency. BT.601 is close enough
  // to tell a colour flip; without WebCodecs, or for an unknown layout, drawImage() it is.
  async function videoPixel(video, x, y) {
    let frame;
    try { frame = new VideoFrame(video); } catch (e) { return pixelOf(video, x, y); }
    try {
      const rect = { x: x & ~1, y: y & ~1, width: 2, height: 2 };
      const buf = new Uint8Array(frame.allocationSize({ rect }));
      const layout = await frame.copyTo(buf, { rect });
      const at = (plane, dx = 0) => buf[layout[plane].offset + dx];
      const fmt = frame.format;
      let yy, u, v;
      if (fmt === "I420" || fmt === "I420A") { yy = at(0); u = at(1); v = at(2); }
      else if (fmt === "NV12") { yy = at(0); u = at(1); v = at(1, 1); }
      else if (fmt === "RGBA" || fmt === "RGBX") return [at(0), at(0, 1), at(0, 2)];
      else if (fmt === "BGRA" || fmt === "BGRX") return [at(0, 2), at(0, 1), at(0)];
      else return pixelOf(video, x, y);
      const c = 1.164 * (yy - 16), d = u - 128, e = v - 128;
      return [c + 1.596 * e, c - 0.392 * d - 0.813 * e, c + 2.017 * d];
    } finally {
      frame.close();
    }
  }

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
        const before = await videoPixel(v, px, py);
        const t0 = performance.now();
        pixelStream.send({ t: "button", button: 1, down: true, x, y });
        pixelStream.send({ t: "button", button: 1, down: false, x, y });
        // checked on every presented frame (the read is asynchronous, so not waitChange)
        const t1 = await new Promise((resolve) => {
          let done = false;
          const timer = setTimeout(() => { done = true; resolve(null); }, 2000);
          const check = async () => {
            const changed = !done && differs(await videoPixel(v, px, py), before);
            if (done) return;
            if (changed) { done = true; clearTimeout(timer); resolve(performance.now()); }
            else v.requestVideoFrameCallback(check);
          };
          v.requestVideoFrameCallback(check);
        });
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
