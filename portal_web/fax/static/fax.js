// Beta Care FaxLink: small conveniences; every action also works without this script.
(function () {
  "use strict";
  function byId(id) { return document.getElementById(id); }
  var pick = byId("directory_entry");
  if (pick) {
    pick.addEventListener("change", function () {
      var opt = pick.options[pick.selectedIndex];
      if (!opt || !opt.value) { return; }
      byId("to_number").value = opt.getAttribute("data-number");
      byId("recipient_name").value = opt.getAttribute("data-name");
      var coverTo = byId("cover_to");
      if (coverTo && !coverTo.value) { coverTo.value = opt.getAttribute("data-cover"); }
    });
  }
  var cover = byId("include_cover");
  if (cover) {
    var update = function () {
      var docs = parseInt(byId("doc-pages").getAttribute("data-pages"), 10) || 0;
      byId("cover-pages").textContent = cover.checked ? "1" : "0";
      byId("total-pages").textContent = String(docs + (cover.checked ? 1 : 0));
      byId("cover-fields").classList.toggle("disabled", !cover.checked);
    };
    cover.addEventListener("change", update);
  }
})();
