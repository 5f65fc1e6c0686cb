// Acme Health provider portal: the small script every page loads. Menus are <details>
// elements and open without it; this closes the others and closes them on an outside
// click. It also shows the idle time-out warning before the server logs the user out
// (the server decides; this only warns, offers "Stay logged in", and goes to the log-in
// page when the time is up). Pages work without this script.
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
  document.addEventListener("DOMContentLoaded", idleWarning);
  document.addEventListener("DOMContentLoaded", icdSearch);
})();
