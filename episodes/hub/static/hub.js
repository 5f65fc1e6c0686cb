// The hub's pages: the episode page polls its state and drives its actions (JSON POSTs with
// the page's CSRF token), fits the live view to the window; the recording page checks by
// replay.
(() => {
  const $ = (id) => document.getElementById(id);
  const meta = document.querySelector('meta[name="csrf-token"]');
  const csrf = meta ? meta.content : "";

  async function postJson(url, body) {
    const response = await fetch(url, {
      method: "POST", headers: {"content-type": "application/json", "x-csrf-token": csrf},
      body: JSON.stringify(body || {}),
    });
    const data = await response.json();
    return [response.ok, data];
  }

  // -- the recording page --------------------------------------------------------------
  const recPage = $("recording-page");
  if (recPage) {
    const api = recPage.dataset.api;
    const button = $("check");
    async function waitChecked() {
      const response = await fetch(api);
      const data = await response.json();
      if (data.checking || data.status === "checking") { setTimeout(waitChecked, 1000); return; }
      location.reload();
    }
    if (button) button.onclick = async () => {
      button.disabled = true;
      $("check-state").textContent = "replaying in a fresh episode…";
      const [ok, data] = await postJson(`${api}/check`);
      if (!ok) { $("check-state").textContent = data.error; button.disabled = false; return; }
      waitChecked();
    };
    if (recPage.dataset.checking === "1") waitChecked();
  }

  // -- the episode page ----------------------------------------------------------------
  const root = $("session");
  if (!root) return;
  const stateUrl = root.dataset.stateUrl;
  let viewerUrl = $("workstation").getAttribute("src");
  let last = null;

  async function post(action, body) {
    const [ok, data] = await postJson(`${stateUrl}/${action}`, body);
    if (!ok) { $("message").textContent = data.error || "refused"; return null; }
    render(data);
    return data;
  }

  function fit() {
    const frame = $("workstation");
    const box = $("fit");
    const w = Number(frame.getAttribute("width")), h = Number(frame.getAttribute("height"));
    const room = $("stage").clientWidth;
    const scale = Math.min(1, room / w);
    frame.style.transform = scale < 1 ? `scale(${scale})` : "";
    box.style.width = `${Math.floor(w * scale)}px`;
    box.style.height = `${Math.ceil(h * scale)}px`;
    root.dataset.scale = scale.toFixed(4);
    const note = $("scale-note");
    note.hidden = scale >= 1;
    note.textContent = scale < 1 ? `The workstation is shown at ${Math.round(scale * 100)}% ` +
      "to fit; clicks land where you point. Hide the side panel («) for a larger view." : "";
  }
  $("collapse").onclick = () => {
    const shut = root.classList.toggle("collapsed");
    $("collapse").textContent = shut ? "»" : "«";
    $("collapse").title = shut ? "show the side panel" : "hide the side panel";
    fit();
  };
  window.addEventListener("resize", fit);
  fit();

  function clock(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  function render(s) {
    last = s;
    if (s.running_count !== undefined && $("running-count")) $("running-count").textContent = s.running_count;
    $("status").textContent = s.status;
    $("busy").textContent = s.busy ? `(${s.busy}…)` : "";
    $("message").textContent = s.message || "";
    $("failure").hidden = !s.failure;
    $("failure").textContent = s.failure || "";
    const c = s.connection;
    if (c) {
      $("connection").textContent = `${c.agent_url}?token=${c.token}`;
      $("snippet").textContent = `from pixel_stream.client import AgentClient\n` +
        `agent = AgentClient("${c.agent_url}", "${c.token}", control="take")\n` +
        `shot = agent.screenshot()`;
      if (viewerUrl !== c.viewer_url) { viewerUrl = c.viewer_url; $("workstation").src = c.viewer_url; }
      $("placeholder").hidden = true;
    }
    if (s.status === "stopped" || s.status === "failed") {
      $("workstation").hidden = true;
      $("placeholder").hidden = false;
      $("placeholder").textContent = `The episode is ${s.status}; start another from the task list.`;
    }
    const rec = s.recording;
    $("rec").hidden = !rec;
    if (rec) {
      $("rec-time").textContent = clock(Date.now() / 1000 - rec.started);
      $("rec-inputs").textContent = s.recording_inputs;
    }
    $("record").hidden = !!rec;
    $("record-stop").hidden = !rec;
    $("recordings").innerHTML = "";
    for (const r of s.recordings || []) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/recordings/${r.n}`;
      a.textContent = `recording #${r.n} by ${r.annotator} (${r.inputs} inputs)` +
        (r.partial ? " — partial" : "") + ` — ${r.status}`;
      li.appendChild(a);
      $("recordings").appendChild(li);
    }
    if (s.oracle && !s.message) {
      const o = s.oracle;
      if (o.state === "running") $("message").textContent = "the oracle is working…";
      else if (o.state === "done") $("message").textContent = `oracle done: ${o.actions} actions in ${o.seconds} s`;
      else if (o.state === "failed") $("message").textContent = `oracle failed: ${o.error}`;
    }
    const r = s.result;
    $("result").hidden = !r;
    if (r) {
      $("score").textContent = r.score === null ? `(${r.status})` : r.score.toFixed(3);
      $("checks").innerHTML = "";
      for (const c of r.rows || []) {
        const tr = document.createElement("tr");
        for (const v of [c.name, c.percent, c.status,
                         c.fraction === null ? "–" : c.fraction.toFixed(3), c.evidence]) {
          const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
        }
        $("checks").appendChild(tr);
      }
    }
    for (const id of ["reset", "finish", "oracle", "record", "record-stop"]) {
      const live = s.status === "running" ||
        ((id === "reset" || id === "record") && s.status === "finished");
      $(id).disabled = !live || !!s.busy || (id === "oracle" && (!s.has_gold || !!rec));
    }
    $("oracle").title = rec ? "not while recording: its inputs would be in your trace" : "";
    $("stop").disabled = s.status === "stopped";
  }

  const recording = () => last && last.recording;
  const keepPartial = (what) => !recording() || confirm(
    `You are recording. ${what} ends the recording; it is kept, marked partial. Go on?`);
  $("record").onclick = () => {
    if (confirm("Record starts from the task's start: the workstation is reset first. Go on?")) post("record");
  };
  $("record-stop").onclick = () => post("record/stop");
  $("reset").onclick = () => { if (keepPartial("Reset")) post("reset"); };
  $("finish").onclick = () => post("finish");
  $("oracle").onclick = () => post("oracle");
  $("stop").onclick = () => {
    if (recording() ? keepPartial("Stopping the episode") : confirm("Stop this episode and all its apps?")) post("stop");
  };

  async function poll() {
    try {
      const response = await fetch(stateUrl);
      if (response.ok) render(await response.json());
    } catch (e) { /* the hub is restarting */ }
    if (!last || last.status !== "stopped") setTimeout(poll, 1000);
  }
  poll();
})();
