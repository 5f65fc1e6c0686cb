// Sandbox ePA portal: saves each answer of the plan's question set as it is entered and
// shows the follow-up questions the server says are now asked. The server decides
// everything (what is valid, what is shown); without this script the question form is
// saved with its Save button and the page redraws with the same result.
(function () {
  "use strict";

  var queue = Promise.resolve();

  function form() { return document.getElementById("questions-form"); }

  function setStatus(text, isError) {
    var el = document.getElementById("save-status");
    if (!el) { return; }
    el.textContent = text;
    el.classList.toggle("error", !!isError);
  }

  function controls(block) {
    return block.querySelectorAll("input[name^='a_'], select[name^='a_'], textarea[name^='a_']");
  }

  function showError(block, message) {
    var feedback = block.querySelector(".invalid-feedback");
    if (feedback) { feedback.textContent = message; feedback.hidden = false; }
    block.classList.add("q-invalid");
    controls(block).forEach(function (el) {
      if (el.classList.contains("form-control")) { el.classList.add("is-invalid"); }
      el.setAttribute("aria-invalid", "true");
    });
  }

  function clearError(block) {
    var feedback = block.querySelector(".invalid-feedback");
    if (feedback) { feedback.textContent = ""; feedback.hidden = true; }
    block.classList.remove("q-invalid");
    controls(block).forEach(function (el) {
      el.classList.remove("is-invalid");
      el.removeAttribute("aria-invalid");
    });
  }

  function apply(reply) {
    var shown = reply.shown, numbers = reply.numbers;
    form().querySelectorAll(".q").forEach(function (block) {
      var key = block.getAttribute("data-key");
      var visible = shown.indexOf(key) >= 0;
      block.hidden = !visible;
      var number = block.querySelector(".q-num");
      if (number) { number.textContent = visible ? numbers[key] : ""; }
    });
    var panel = document.getElementById("hidden-answers");
    if (panel && reply.hidden_html) { panel.outerHTML = reply.hidden_html; }
    var badge = document.getElementById("request-status");
    if (badge && reply.status) { badge.textContent = reply.status; }
  }

  function save(block) {
    var f = form();
    var key = block.getAttribute("data-key");
    var data = new FormData();
    data.append("csrf_token", f.querySelector("input[name='csrf_token']").value);
    data.append("question", key);
    controls(block).forEach(function (el) {
      if ((el.type === "radio" || el.type === "checkbox") && !el.checked) { return; }
      data.append(el.name, el.value);
    });
    setStatus("Saving\u2026", false);
    return fetch(f.getAttribute("data-autosave"), {
      method: "POST", body: data, credentials: "same-origin", keepalive: true,
      headers: { "Accept": "application/json" }
    }).then(function (response) {
      var type = response.headers.get("content-type") || "";
      if (type.indexOf("application/json") < 0) { throw new Error("not json"); }
      return response.json();
    }).then(function (reply) {
      if (!reply.ok) {
        if (reply.field && reply.field !== "_form") { showError(block, reply.error); }
        setStatus(reply.field === "_form" ? reply.error : "Not saved: fix the answer marked in red.", true);
        return;
      }
      clearError(block);
      apply(reply);
      setStatus("All changes saved " + reply.saved_at, false);
    }).catch(function () {
      setStatus("Not saved: your session may have ended. Select Save, or reload the page.", true);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var f = form();
    if (!f || !window.fetch) { return; }
    f.addEventListener("change", function (event) {
      var block = event.target.closest ? event.target.closest(".q") : null;
      if (!block) { return; }
      queue = queue.then(function () { return save(block); });
    });
  });
})();
