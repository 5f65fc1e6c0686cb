// Shows and hides follow-up questions as answers change (FHIR enableWhen: =, !=, >, <,
// >=, <=, exists; all/any). The server applies the same rules when the form is sent, and
// the page works without this script ("Show follow-up questions").
(function () {
  "use strict";
  var form = document.getElementById("questionnaire-form");
  var data = document.getElementById("question-conditions");
  if (!form || !data) { return; }
  var questions = JSON.parse(data.textContent);
  var refresh = document.getElementById("refresh-questions");
  if (refresh) { refresh.hidden = true; }

  function answerOf(q) {
    var inputs = form.querySelectorAll('[name="' + q.field + '"]');
    var values = [];
    inputs.forEach(function (input) {
      if (input.disabled) { return; }
      if ((input.type === "radio" || input.type === "checkbox")) {
        if (input.checked) { values.push(input.value); }
      } else if (input.value.trim() !== "") { values.push(input.value.trim()); }
    });
    return values.sort().join("|");
  }
  function compare(answer, op, expected) {
    if (op === "exists") {
      var present = answer !== "";
      return ["", "true", "yes"].indexOf(expected.toLowerCase()) >= 0 ? present : !present;
    }
    if (answer === "") { return false; }
    if (op === "=" || op === "!=") {
      var equal = answer.split("|").some(function (v) { return v.toLowerCase() === expected.toLowerCase(); });
      return op === "=" ? equal : !equal;
    }
    var a = parseFloat(answer), b = parseFloat(expected);
    var left = isNaN(a) || isNaN(b) ? answer : a, right = isNaN(a) || isNaN(b) ? expected : b;
    return { ">": left > right, "<": left < right, ">=": left >= right, "<=": left <= right }[op];
  }
  function update() {
    var visible = {};
    questions.forEach(function (q) {
      var item = document.getElementById("question-" + q.key);
      var results = q.conditions.map(function (c) { return compare(visible[c[0]] || "", c[1], c[2]); });
      var on = results.length === 0 || (q.behavior === "any" ? results.some(Boolean) : results.every(Boolean));
      item.hidden = !on;
      item.querySelectorAll("input, textarea, select").forEach(function (el) { el.disabled = !on; });
      if (on) {
        var value = answerOf(q);
        if (value !== "") { visible[q.key] = value; }
      }
    });
  }
  form.addEventListener("change", update);
  form.addEventListener("input", update);
  update();
})();
