/* emutrace report pages: filtering, folding and sorting. The page reads fully without this
 * script; it only adds controls. It never reads or inserts markup from the page's data: text
 * is compared as text (textContent) and rows are moved, never rebuilt. */
(function () {
  "use strict";
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text) e.textContent = text;
    return e;
  }
  /* a filter box before each long table */
  Array.prototype.forEach.call(document.querySelectorAll("table[data-filter]"), function (t, i) {
    var rows = t.tBodies[0] ? t.tBodies[0].rows : [];
    if (rows.length < 8) return;
    var box = el("div", {"class": "tools"});
    var id = "filter-" + i;
    var label = el("label", {"for": id}, "Filter " + (t.caption ? t.caption.firstChild.textContent.trim().toLowerCase() : "rows") + ":");
    var input = el("input", {"type": "search", "id": id, "placeholder": "text in any column"});
    var shown = el("span", {"class": "muted", "aria-live": "polite"});
    input.addEventListener("input", function () {
      var q = input.value.toLowerCase(), n = 0;
      Array.prototype.forEach.call(rows, function (r) {
        var hit = !q || r.textContent.toLowerCase().indexOf(q) >= 0;
        r.hidden = !hit;
        if (hit) n++;
      });
      shown.textContent = q ? n + " of " + rows.length + " rows" : "";
    });
    box.appendChild(label); box.appendChild(input); box.appendChild(shown);
    var wrap = t.parentNode.classList.contains("scroll") ? t.parentNode : t;
    wrap.parentNode.insertBefore(box, wrap);
  });
  /* sortable columns where a table asks for them */
  Array.prototype.forEach.call(document.querySelectorAll("table[data-sort]"), function (t) {
    var ths = t.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths, function (th, col) {
      var b = el("button", {"type": "button"}, th.textContent);
      th.textContent = "";
      th.appendChild(b);
      b.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(ths, function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = t.tBodies[0], rs = Array.prototype.slice.call(body.rows);
        function key(r) { var c = r.cells[col]; return c ? (c.getAttribute("data-key") || c.textContent) : ""; }
        rs.sort(function (a, b) {
          var x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
          var d = (!isNaN(nx) && !isNaN(ny) && String(nx) === x.trim() && String(ny) === y.trim()) ? nx - ny : x.localeCompare(y);
          return asc ? d : -d;
        });
        rs.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  /* fold and unfold every <details> */
  var all = document.querySelectorAll("details");
  var nav = document.querySelector("nav.toc");
  if (all.length && nav) {
    var box = el("div", {"class": "tools"});
    [["Unfold all", true], ["Fold all", false]].forEach(function (p) {
      var b = el("button", {"type": "button"}, p[0]);
      b.addEventListener("click", function () { Array.prototype.forEach.call(all, function (d) { d.open = p[1]; }); });
      box.appendChild(b);
    });
    nav.appendChild(box);
  }
})();
