// Build to lossless: exact PNG tiles of the settled screen painted over the video at 1:1.
//
// The server (pixel_stream/lossless.py) sends on the data channel "lossless":
//   {t:"start", seq}                          the damage log starts after frame seq
//   {t:"v", rtp, seq, known, rects}           the video frame with that RTP timestamp shows
//                                             frame seq; rects: [[seq,x,y,w,h],...], damage
//                                             of each captured frame, the log then complete
//                                             up to frame `known`
//   {t:"d", known, rects}                     the damage log up to frame `known`, for a
//                                             change sent as tiles only (no video frame)
//   binary: a tile batch — 4-byte big-endian length, JSON {t:"b", tiles:[[seq,x,y,w,h,
//     size],...], d?:{known, rects}, exact?}, then the tiles' PNGs back to back: a change
//     sent as tiles only is one message (its damage log, its tiles, "exact")
//   {t:"tile", id, seq, x, y, w, h, size, chunks} + `chunks` binary messages (the PNG of a
//                                             tile too large for a batch)
//   {t:"exact", seq}                          every tile for frame seq has been sent
// `settled` is true once the canvas shows the latest known frame exactly.
// The canvas holds disjoint records {x, y, w, h, seq}: areas painted from tile `seq`. When the
// video presents frame V, every damage entry up to V clears the records older than it
// (there the video is newer); a tile older than the presented video is cut where the video
// already shows later damage. So a stale tile never hides a newer picture, and whatever is
// cleared was damaged after its tile: the server sends it again once it settles.

const MAX_LOG = 2000;
const MAX_RTP = 512;

export function intersect(a, b) {
  const x = Math.max(a.x, b.x), y = Math.max(a.y, b.y);
  const w = Math.min(a.x + a.w, b.x + b.w) - x, h = Math.min(a.y + a.h, b.y + b.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : null;
}

// The parts of `a` outside `b` (at most four rectangles), keeping a's other fields.
export function subtract(a, b) {
  const i = intersect(a, b);
  if (!i) return [a];
  const out = [];
  const piece = (x, y, w, h) => { if (w > 0 && h > 0) out.push({ ...a, x, y, w, h }); };
  piece(a.x, a.y, a.w, i.y - a.y);                                  // above
  piece(a.x, i.y + i.h, a.w, a.y + a.h - i.y - i.h);                // below
  piece(a.x, i.y, i.x - a.x, i.h);                                  // left
  piece(i.x + i.w, i.y, a.x + a.w - i.x - i.w, i.h);                // right
  return out;
}

export class Lossless {
  constructor(canvas, onResend) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d", { alpha: true });
    this.onResend = onResend;  // (rect) => ask the server for that area again
    this.reset();
  }

  reset() {
    this.records = [];
    this.log = [];              // [seq, x, y, w, h], ascending seq
    this.logFrom = null;        // the log is complete for seqs > logFrom
    this.knownSeq = -1;         // ... up to knownSeq
    this.presented = null;      // seq of the video frame on screen
    this.wanted = null;         // a presented seq whose damage is not known yet
    this.pendingRtp = [];       // presented RTP timestamps not stamped (yet, or ever:
                                // heartbeats that repeat a picture are not stamped)
    this.rtpSeq = new Map();
    this.tile = null; this.parts = [];
    this.chain = Promise.resolve();
    this.stats = { tiles: 0, lastTileAt: null, cleared: 0, resends: 0 };
    this.exactSeq = null;       // every tile up to this frame painted (server's "exact")
    if (this.canvas.width) this.ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
  }

  resize(width, height) {
    if (this.canvas.width === width && this.canvas.height === height) return;
    const lost = this.records.length > 0;
    this.canvas.width = width; this.canvas.height = height;  // clears the canvas
    this.ctx.imageSmoothingEnabled = false;
    this.records = [];
    // tiles painted before the size was known are gone: ask for them again
    if (width && lost) this.onResend({ x: 0, y: 0, w: width, h: height });
  }

  onMessage(data) {
    if (typeof data !== "string") {
      if (!this.tile) { this.onBatch(data); return; }
      this.parts.push(data);
      if (this.parts.length === this.tile.chunks) {
        const tile = this.tile, blob = new Blob(this.parts, { type: "image/png" });
        this.tile = null; this.parts = [];
        this.chain = this.chain.then(() => this.decodeAndPaint(tile, blob));
      }
      return;
    }
    let msg;
    try { msg = JSON.parse(data); } catch (err) { return; }
    if (msg.t === "tile") {
      this.tile = msg; this.parts = [];
    } else if (msg.t === "start") {
      this.logFrom = msg.seq;
      this.knownSeq = Math.max(this.knownSeq, msg.seq);
    } else if (msg.t === "d") {
      this.takeLog(msg);
    } else if (msg.t === "exact") {
      this.exact(msg.seq);
    } else if (msg.t === "v") {
      if (this.logFrom === null) return;
      for (const entry of msg.rects) if (entry[0] > this.logFrom) this.log.push(entry);
      this.knownSeq = Math.max(this.knownSeq, msg.known);
      if (this.wanted !== null && this.wanted <= this.knownSeq) this.present(this.wanted);
      this.rtpSeq.set(msg.rtp, msg.seq);
      if (this.rtpSeq.size > MAX_RTP) this.rtpSeq.delete(this.rtpSeq.keys().next().value);
      const waiting = this.pendingRtp.indexOf(msg.rtp);
      if (waiting >= 0) { this.pendingRtp.splice(waiting, 1); this.present(msg.seq); }
    }
  }

  // A change sent as tiles only (no video frame): the damage log up to log.known.
  takeLog(log) {
    if (this.logFrom === null) return;
    for (const entry of log.rects) if (entry[0] > this.logFrom) this.log.push(entry);
    this.knownSeq = Math.max(this.knownSeq, log.known);
    if (this.wanted !== null && this.wanted <= this.knownSeq) this.present(this.wanted);
  }

  exact(seq) {
    this.chain = this.chain.then(() => { this.exactSeq = seq; });
  }

  // One binary message: [length][JSON header][PNG][PNG]...
  onBatch(buffer) {
    let header;
    try {
      const length = new DataView(buffer).getUint32(0);
      header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, length)));
      if (header.t !== "b") return;
      let offset = 4 + length;
      if (header.d) this.takeLog(header.d);
      for (const [seq, x, y, w, h, size] of header.tiles) {
        const tile = { seq, x, y, w, h };
        const blob = new Blob([new Uint8Array(buffer, offset, size)], { type: "image/png" });
        offset += size;
        this.chain = this.chain.then(() => this.decodeAndPaint(tile, blob));
      }
    } catch (err) {
      return;
    }
    if (header.exact !== undefined) this.exact(header.exact);
  }

  // The canvas shows the latest known frame exactly everywhere: the server said every
  // tile was sent, they are painted, and no damage came since.
  get settled() {
    return this.exactSeq !== null && this.exactSeq === this.knownSeq &&
      this.canvas.width > 0 && this.records.length > 0;
  }

  // requestVideoFrameCallback: the frame with this RTP timestamp is on screen.
  onVideoFrame(rtp) {
    const seq = this.rtpSeq.get(rtp);
    if (seq === undefined) {
      this.pendingRtp.push(rtp);
      if (this.pendingRtp.length > 16) this.pendingRtp.shift();
      return;
    }
    this.present(seq);
  }

  present(seq) {
    if (seq > this.knownSeq) {
      if (this.wanted === null || seq > this.wanted) this.wanted = seq;
      return;
    }
    if (this.wanted !== null && this.wanted <= seq) this.wanted = null;
    const from = this.presented === null ? -Infinity : this.presented;
    if (seq <= from) return;
    for (const [s, x, y, w, h] of this.log) {
      if (s <= from || s > seq) continue;
      const damage = { x, y, w, h };
      const kept = [];
      for (const r of this.records) {
        const hit = r.seq < s ? intersect(r, damage) : null;
        if (!hit) { kept.push(r); continue; }
        this.ctx.clearRect(hit.x, hit.y, hit.w, hit.h);
        this.stats.cleared += 1;
        kept.push(...subtract(r, damage));
      }
      this.records = kept;
    }
    this.presented = seq;
    if (this.log.length > MAX_LOG) {
      const drop = this.log.length - MAX_LOG;
      this.logFrom = Math.max(this.logFrom, this.log[drop - 1][0]);
      this.log.splice(0, drop);
    }
  }

  async decodeAndPaint(tile, blob) {
    let bitmap;
    try {
      bitmap = await createImageBitmap(blob, {
        premultiplyAlpha: "none", colorSpaceConversion: "none",
      });
    } catch (err) {
      this.resend(tile);
      return;
    }
    this.paint(tile, bitmap);
    bitmap.close();
  }

  resend(rect) {
    this.stats.resends += 1;
    this.onResend({ x: rect.x, y: rect.y, w: rect.w, h: rect.h });
  }

  // Paint tile `seq` except where newer tiles are, or where the video shows later damage.
  paint(tile, bitmap) {
    const rect = { x: tile.x, y: tile.y, w: tile.w, h: tile.h };
    if (this.logFrom === null || tile.seq < this.logFrom) { this.resend(rect); return; }
    let pieces = [rect];
    for (const r of this.records) {
      if (r.seq > tile.seq) pieces = pieces.flatMap((p) => subtract(p, r));
    }
    if (this.presented !== null && this.presented > tile.seq) {
      for (const [s, x, y, w, h] of this.log) {
        if (s > tile.seq && s <= this.presented) {
          pieces = pieces.flatMap((p) => subtract(p, { x, y, w, h }));
        }
      }
    }
    this.records = this.records.flatMap((r) => (r.seq <= tile.seq ? subtract(r, rect) : [r]));
    const ctx = this.ctx;
    ctx.imageSmoothingEnabled = false;
    for (const p of pieces) {
      ctx.clearRect(p.x, p.y, p.w, p.h);
      ctx.drawImage(bitmap, p.x - rect.x, p.y - rect.y, p.w, p.h, p.x, p.y, p.w, p.h);
      this.records.push({ ...p, seq: tile.seq });
    }
    this.stats.tiles += 1;
    this.stats.lastTileAt = performance.now();
  }
}
