// The session page: polls the episode's state and drives its actions (JSON POSTs).
(() => {
  const root = document.getElementById("session");
  if (!root) return;
  const stateUrl = root.dataset.stateUrl;
  const $ = (id) => document.getElementById(id);
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  let viewerUrl = $("workstation").getAttribute("src");

  async function post(action, body) {
    const response = await fetch(`${stateUrl}/${action}`, {
      method: "POST", headers: {"content-type": "application/json", "x-csrf-token": csrf},
      body: JSON.stringify(body || {}),
    });
    const data = await response.json();
    if (!response.ok) { $("message").textContent = data.error || response.statusText; return null; }
    render(data);
    return data;
  }

  function render(s) {
    $("status").textContent = s.status;
    $("busy").textContent = s.busy ? `(${s.busy}…)` : "";
    if (s.message) $("message").textContent = s.message;
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
    $("record").hidden = !!s.recording;
    $("record-stop").hidden = !s.recording;
    $("recordings").innerHTML = "";
    for (const r of s.recordings || []) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/episodes/${root.dataset.episode}/recordings/${r.number}`;
      a.textContent = `gold trace #${r.number} by ${r.annotator} (${r.events} inputs)`;
      li.appendChild(a);
      $("recordings").appendChild(li);
    }
    if (s.oracle) {
      const o = s.oracle;
      if (o.state === "running") $("message").textContent = "the oracle is working…";
      else if (o.state === "done" && !s.message) $("message").textContent = `oracle done: ${o.actions} actions in ${o.seconds} s`;
      else if (o.state === "failed") $("message").textContent = `oracle failed: ${o.error}`;
    }
    const r = s.result;
    $("result").hidden = !r;
    if (r) {
      $("score").textContent = r.score === null ? `(${r.status})` : r.score.toFixed(3);
      $("checks").innerHTML = "";
      for (const c of (r.report && r.report.checks) || []) {
        const tr = document.createElement("tr");
        for (const v of [c.name, c.percent, c.status, c.fraction === null ? "–" : c.fraction.toFixed(3)]) {
          const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
        }
        $("checks").appendChild(tr);
      }
    }
    for (const id of ["reset", "finish", "oracle", "record"]) {
      const live = s.status === "running" || (id === "reset" && s.status === "finished");
      $(id).disabled = !live || !!s.busy || (id === "oracle" && !s.has_gold);
    }
  }

  $("record").onclick = () => post("record");
  $("record-stop").onclick = () => post("record/stop");
  $("reset").onclick = () => post("reset");
  $("finish").onclick = () => post("finish");
  $("oracle").onclick = () => post("oracle");
  $("stop").onclick = () => { if (confirm("Stop this episode and all its apps?")) post("stop"); };

  async function poll() {
    try {
      const response = await fetch(stateUrl);
      if (response.ok) render(await response.json());
    } catch (e) { /* the hub is restarting */ }
    setTimeout(poll, 1000);
  }
  poll();
})();
