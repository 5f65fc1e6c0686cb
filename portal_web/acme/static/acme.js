// Acme Health provider portal: the small script every page loads. Menus are <details>
// elements and open without it; this closes the others and closes them on an outside
// click. It also shows the idle time-out warning before the server logs the user out
// (the server decides; this only warns, offers "Stay logged in", and goes to the log-in
// page when the time is up), and asks before a form marked data-confirm is sent (a
// dialog in the page, as the portal's own). Pages work without this script.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    document.querySelectorAll("details.dropdown[open]").forEach(function (menu) {
      if (!menu.contains(event.target)) { menu.removeAttribute("open"); }
    });
  });
  document.addEventListener("toggle", function (event) {
    var opened = event.target;
    if (!opened.matches || !opened.matches("details.dropdown") || !opened.open) { return; }
    document.querySelectorAll("details.dropdown[open]").forEach(function (menu) {
      if (menu !== opened && !menu.contains(opened)) { menu.removeAttribute("open"); }
    });
  }, true);

  function idleWarning() {
    var body = document.body;
    var timeout = parseInt(body.getAttribute("data-idle-timeout") || "", 10);
    var warnBefore = parseInt(body.getAttribute("data-idle-warning") || "120", 10);
    var dialog = document.getElementById("idle-warning");
    if (!timeout || !dialog) { return; }
    var countdown = document.getElementById("idle-countdown");
    var deadline = Date.now() + timeout * 1000;
    function tick() {
      var left = Math.round((deadline - Date.now()) / 1000);
      if (left <= 0) {
        var next = encodeURIComponent(location.pathname + location.search);
        location.href = "/login?expired=1&next=" + next;
        return;
      }
      if (left <= warnBefore) {
        if (dialog.hidden) { dialog.hidden = false; document.getElementById("idle-stay").focus(); }
        var m = Math.floor(left / 60), s = left % 60;
        countdown.textContent = m + ":" + (s < 10 ? "0" : "") + s;
      }
      window.setTimeout(tick, 1000);
    }
    document.getElementById("idle-stay").addEventListener("click", function () {
      fetch("/session/keepalive", { method: "POST", credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (data) {
          if (!data.logged_in) { location.href = "/login?expired=1"; return; }
          deadline = Date.now() + data.remaining_s * 1000;
          dialog.hidden = true;
        });
    });
    window.setTimeout(tick, 1000);
  }
  // ICD-10-CM search beside a diagnosis list: suggestions while typing, Add appends the
  // chosen code as a new line. Without the script the list is typed by hand.
  function icdSearch() {
    var box = document.querySelector(".icd-search");
    if (!box) { return; }
    var input = document.getElementById("icd-search-input");
    var list = document.getElementById("icd-suggestions");
    var target = document.getElementById(box.getAttribute("data-target"));
    var timer = null;
    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      var q = input.value.trim();
      if (q.length < 3 || /^[A-Za-z][0-9][0-9A-Za-z.]* - /.test(q)) { return; }
      timer = window.setTimeout(function () {
        fetch("/auth/codes/icd10?q=" + encodeURIComponent(q), { credentials: "same-origin" })
          .then(function (r) { return r.ok ? r.json() : []; })
          .then(function (rows) {
            list.innerHTML = "";
            rows.forEach(function (row) {
              var option = document.createElement("option");
              option.value = row.code + " - " + row.description;
              list.appendChild(option);
            });
          });
      }, 200);
    });
    document.getElementById("icd-add").addEventListener("click", function () {
      var code = input.value.trim().split(" ")[0].toUpperCase();
      if (!code) { return; }
      var lines = target.value.split(/\s*[\n,;]\s*/).filter(Boolean);
      if (lines.indexOf(code) < 0) { lines.push(code); }
      target.value = lines.join("\n");
      input.value = "";
      input.focus();
    });
  }
  // A form with data-confirm asks first, in the page (not the browser's own confirm box):
  // its button goes on, Cancel or Escape leaves everything as it was. Without the script
  // the form is sent at once.
  function confirmDialog(form) {
    var overlay = document.createElement("div");
    overlay.className = "idle-warning confirm-dialog";
    overlay.id = "confirm-dialog";
    overlay.setAttribute("role", "alertdialog");
    overlay.setAttribute("aria-modal", "true");
    overlay.setAttribute("aria-labelledby", "confirm-title");
    var box = document.createElement("div");
    box.className = "idle-box confirm-box";
    var title = document.createElement("h2");
    title.id = "confirm-title";
    title.textContent = form.getAttribute("data-confirm-title") || "Please confirm";
    var text = document.createElement("p");
    text.textContent = form.getAttribute("data-confirm");
    var row = document.createElement("div");
    row.className = "btn-row";
    var yes = document.createElement("button");
    yes.type = "button";
    yes.className = "btn btn-danger";
    yes.textContent = form.getAttribute("data-confirm-button") || "OK";
    var no = document.createElement("button");
    no.type = "button";
    no.className = "btn btn-secondary";
    no.textContent = "Cancel";
    row.appendChild(yes);
    row.appendChild(no);
    box.appendChild(title);
    box.appendChild(text);
    box.appendChild(row);
    overlay.appendChild(box);
    function close() {
      document.removeEventListener("keydown", onKey, true);
      overlay.remove();
    }
    function onKey(event) {
      if (event.key === "Escape") { event.preventDefault(); close(); }
    }
    no.addEventListener("click", close);
    yes.addEventListener("click", function () {
      yes.disabled = true;
      HTMLFormElement.prototype.submit.call(form);
    });
    document.addEventListener("keydown", onKey, true);
    document.body.appendChild(overlay);
    no.focus();
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-confirm]")) { return; }
    event.preventDefault();
    if (!document.getElementById("confirm-dialog")) { confirmDialog(form); }
  });
  document.addEventListener("DOMContentLoaded", idleWarning);
  document.addEventListener("DOMContentLoaded", icdSearch);
})();
