// External review portal: show/hide dependent parts and the filing deadline as you type.
// Every rule is checked again on the server; the page works without this script.
(function () {
  "use strict";
  function byId(id) { return document.getElementById(id); }
  function toggle(box, target) {
    if (!box || !target) { return; }
    var update = function () { target.classList.toggle("hidden", box.id === "patient_is_enrollee" ? box.checked : !box.checked); };
    box.addEventListener("change", update);
    update();
  }
  toggle(byId("patient_is_enrollee"), byId("patient-fields"));
  toggle(byId("expedited"), byId("expedited-fields"));
  var denial = byId("final_denial_date"), out = byId("deadline-text"), win = byId("filing-window");
  if (denial && out && win) {
    var months = parseInt(win.getAttribute("data-months"), 10) || 4;
    denial.addEventListener("input", function () {
      var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(denial.value.trim());
      if (!m) { return; }
      var y = +m[1], mo = +m[2] - 1 + months, d = +m[3];
      y += Math.floor(mo / 12); mo = mo % 12;
      var last = new Date(Date.UTC(y, mo + 1, 0)).getUTCDate();
      var day = Math.min(d, last);
      var text = y + "-" + String(mo + 1).padStart(2, "0") + "-" + String(day).padStart(2, "0");
      out.innerHTML = "Last day to file: <b id=\"deadline\">" + text + "</b>";
    });
  }
})();
