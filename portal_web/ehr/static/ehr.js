// Sandbox OpenEMR: the little script the pages use. Menus open on click (they are
// <details> elements and work without this); this only closes the other open menus and
// closes them on an outside click. Vitals fields mirror US/metric entries (the server
// converts and checks again; it never relies on this script).
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

  function round(value, places) {
    var f = Math.pow(10, places);
    return Math.round(value * f) / f;
  }
  var pairs = [
    ["weight_lb", "weight_kg", function (lb) { return round(lb * 0.45359237, 2); }, function (kg) { return round(kg / 0.45359237, 2); }],
    ["height_in", "height_cm", function (inch) { return round(inch * 2.54, 2); }, function (cm) { return round(cm / 2.54, 2); }],
    ["temperature_f", "temperature_c", function (f) { return round((f - 32) * 5 / 9, 2); }, function (c) { return round(c * 9 / 5 + 32, 2); }],
    ["waist_circ_in", "waist_circ_cm", function (inch) { return round(inch * 2.54, 2); }, function (cm) { return round(cm / 2.54, 2); }],
    ["head_circ_in", "head_circ_cm", function (inch) { return round(inch * 2.54, 2); }, function (cm) { return round(cm / 2.54, 2); }]
  ];
  function wire(usId, metricId, toMetric, toUs) {
    var us = document.getElementById(usId), metric = document.getElementById(metricId);
    if (!us || !metric) { return; }
    us.addEventListener("input", function () {
      var v = parseFloat(us.value);
      metric.value = isNaN(v) ? "" : toMetric(v);
      updateBmi();
    });
    metric.addEventListener("input", function () {
      var v = parseFloat(metric.value);
      us.value = isNaN(v) ? "" : toUs(v);
      updateBmi();
    });
  }
  function updateBmi() {
    var out = document.getElementById("bmi_preview");
    var w = document.getElementById("weight_lb"), h = document.getElementById("height_in");
    if (!out || !w || !h) { return; }
    var lb = parseFloat(w.value), inch = parseFloat(h.value);
    out.value = (lb > 0 && inch > 0) ? round(lb * 703 / (inch * inch), 1) : "";
  }
  document.addEventListener("DOMContentLoaded", function () {
    pairs.forEach(function (p) { wire(p[0], p[1], p[2], p[3]); });
  });
})();
