/* Item browser: filter answers by model, environment, variant, party, sub-question verdict,
   judge disagreement, coded stance and prior stance (issue 16); show context, answer and every
   judge's verdicts. Plain JS, no libraries.
   All data text goes into the page through text nodes only (answers are untrusted output), each
   piece inside its own <bdi> so its writing direction cannot reorder the text around it, and
   names are shortened (full text on hover) so a huge name cannot stretch the page. */

/* The sticky table of contents: a link must not hide the heading it jumps to. The CSS keeps a
   fixed margin above every anchor (--toc-height); this sets it to the bar's real height, which
   grows when its links wrap onto more lines (narrow windows). */
(function () {
  "use strict";
  var toc = document.querySelector("nav.toc");
  if (!toc) {
    return;
  }
  function measure() {
    var height = Math.ceil(toc.getBoundingClientRect().height);
    document.documentElement.style.setProperty("--toc-height", height + "px");
  }
  measure();
  window.addEventListener("resize", measure);
})();

(function () {
  "use strict";
  var source = document.getElementById("browser-data");
  var root = document.getElementById("item-browser");
  if (!source || !root) {
    return;
  }
  var D = JSON.parse(source.textContent);
  var PAGE_SIZE = 20;
  var S = D.strings;
  var state = { page: 0, matches: [] };

  /* A large study's answers are paged from data files beside the page (report/browser_files.py):
     the page holds what the filters read; an answer's texts arrive with its file, loaded by a
     script element (fetch is refused for pages opened from disk). Each file calls
     polistemicsBrowserPage with its answers and its own string and context tables, which are
     appended to the page's, so the rest of this script reads every answer alike. */
  var FILES = D.files || [];
  var PER_FILE = D.perFile || 1;
  var files = {};  // file number -> "loading" | "loaded" | "failed"
  var waiting = [];  // {numbers, done} until every file named is loaded or failed
  D.items.forEach(function (item, i) { item.i = i; });

  function shifted(index, by) {
    return index === null || index === undefined ? null : index + by;
  }

  window.polistemicsBrowserPage = function (number, page) {
    if (files[number] === "loaded" || typeof number !== "number") return;
    var strings = S.length;
    var contexts = D.contexts.length;
    page.strings.forEach(function (value) { S.push(value); });
    page.contexts.forEach(function (context) {
      D.contexts.push(context.map(function (chunk) { return [shifted(chunk[0], strings), chunk[1]]; }));
    });
    page.items.forEach(function (row, k) {
      var item = D.items[number * PER_FILE + k];
      if (!item) return;
      item.q = shifted(row.q, strings);
      item.a = shifted(row.a, strings);
      item.f = shifted(row.f, strings);
      item.x = row.x + contexts;
      item.j = row.j.map(function (r) { return [r[0], r[1], shifted(r[2], strings), r[3], shifted(r[4], strings)]; });
      item.l = row.l;
      item.t = row.t;
      item.g = row.g;
      item.k = row.k;
    });
    files[number] = "loaded";
    settle();
  };

  function fileOf(item) {
    return Math.floor(item.i / PER_FILE);
  }

  function settle() {
    // the finished waits leave the list before their callbacks run (a callback may wait again)
    var finished = waiting.filter(function (wait) {
      return !wait.numbers.some(function (n) { return files[n] === "loading"; });
    });
    waiting = waiting.filter(function (wait) { return finished.indexOf(wait) < 0; });
    finished.forEach(function (wait) {
      wait.done(wait.numbers.filter(function (n) { return files[n] === "failed"; }));
    });
  }

  // done(failed file numbers) once every data file of these answers is loaded or has failed
  function load(items, done) {
    var numbers = [];
    if (FILES.length) {
      items.forEach(function (item) {
        var n = fileOf(item);
        if (numbers.indexOf(n) < 0) numbers.push(n);
      });
    }
    numbers.forEach(function (n) {
      if (files[n]) return;
      files[n] = "loading";
      var script = document.createElement("script");
      script.src = FILES[n];
      script.onerror = function () { files[n] = "failed"; settle(); };
      document.head.append(script);
    });
    waiting.push({ numbers: numbers, done: done });
    settle();
  }

  function everyFileTried() {
    return FILES.every(function (_, n) { return files[n] === "loaded" || files[n] === "failed"; });
  }

  function node(tag, className, children) {
    var element = document.createElement(tag);
    if (className) {
      element.className = className;
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) {
        return;
      }
      element.append(child);
    });
    return element;
  }

  function text(index) {
    return index === null || index === undefined ? null : S[index];
  }

  var NAME_LIMIT = 80;

  function shorten(value, limit) {
    return value.length > limit ? value.slice(0, limit - 1) + "\u2026" : value;
  }

  // user text, isolated; with a limit, shortened with the whole text as tooltip
  function iso(value, limit) {
    if (value === null || value === undefined) {
      return null;
    }
    value = String(value);
    var element = document.createElement("bdi");
    element.textContent = limit ? shorten(value, limit) : value;
    if (limit && value.length > limit) {
      element.title = value;
    }
    return element;
  }

  function option(value, label) {
    var element = document.createElement("option");
    element.value = value;
    element.textContent = shorten(label, NAME_LIMIT);
    if (label.length > NAME_LIMIT) {
      element.title = label;
    }
    return element;
  }

  function fill(select, entries) {
    select.append(option("", "All"));
    entries.forEach(function (entry) {
      select.append(option(String(entry[0]), entry[1]));
    });
  }

  var controls = {
    model: document.getElementById("f-model"),
    environment: document.getElementById("f-environment"),
    variant: document.getElementById("f-variant"),
    party: document.getElementById("f-party"),
    subQuestion: document.getElementById("f-subq"),
    verdict: document.getElementById("f-verdict"),
    judges: document.getElementById("f-judges"),
    coded: document.getElementById("f-coded"),
    prior: document.getElementById("f-prior"),
    search: document.getElementById("f-search")
  };

  function used(field) {
    var seen = {};
    D.items.forEach(function (item) {
      seen[item[field]] = true;
    });
    return seen;
  }

  var usedModels = used("m");
  var usedEnvironments = used("e");
  var usedVariants = used("v");
  fill(controls.model, D.models.map(function (m, i) { return [i, m[1]]; }).filter(function (e) { return usedModels[e[0]]; }));
  fill(controls.environment, D.environments.map(function (e, i) { return [i, e[1]]; }).filter(function (e) { return usedEnvironments[e[0]]; }));
  fill(controls.variant, D.variants.map(function (v, i) { return [i, v[1]]; }).filter(function (e) { return usedVariants[e[0]]; }));
  fill(
    controls.party,
    D.parties
      .map(function (p, i) { return [i, p[1]]; })
      .sort(function (a, b) { return a[1].localeCompare(b[1]); })
  );
  controls.subQuestion.append(option("", "All sub-questions"));
  D.subQuestions.forEach(function (sq, i) {
    controls.subQuestion.append(option(String(i), sq[1] + " " + sq[2]));
  });
  if (!D.hasStances) {
    [controls.coded, controls.prior].forEach(function (control) {
      control.disabled = true;
      control.title = "This run did not code stances (set stance_coder in the run config).";
    });
  }
  var CODES = { agree: true, disagree: true, neutral: true, no_position: true, both: true };

  function codedMatches(item, wanted) {
    if (!wanted) return true;
    if (wanted === "uncoded") return item.cs !== null && item.cs !== undefined && !CODES[item.cs];
    return item.cs === wanted;
  }

  function priorMatches(item, wanted) {
    if (!wanted) return true;
    var prior = item.ps === undefined ? null : item.ps;
    if (wanted === "none") return prior === null;
    if (wanted === "matches") return prior !== null && prior === item.s;
    if (wanted === "differs") return prior !== null && prior !== item.s;
    return prior === wanted;
  }

  if (!D.hasJudges) {
    controls.judges.disabled = true;
    controls.judges.title = "Individual judge verdicts are not available for this source.";
  }

  function selected(control) {
    return control.value === "" ? null : Number(control.value);
  }

  function verdictOf(item, subQuestion) {
    if (subQuestion !== null) {
      var mark = item.c.charAt(subQuestion);
      return mark === "P" ? "pass" : mark === "F" ? "fail" : "none";
    }
    if (item.c.indexOf("F") >= 0) {
      return "fail";
    }
    return item.c.indexOf("P") >= 0 ? "pass" : "none";
  }

  function matches(item, filter) {
    if (filter.model !== null && item.m !== filter.model) return false;
    if (filter.environment !== null && item.e !== filter.environment) return false;
    if (filter.variant !== null && item.v !== filter.variant) return false;
    if (filter.party !== null && item.p !== filter.party) return false;
    var verdict = verdictOf(item, filter.subQuestion);
    if (filter.subQuestion !== null && verdict === "none") return false;
    if (filter.verdict && verdict !== filter.verdict) return false;
    if (filter.judges === "split" && !item.d) return false;
    if (!codedMatches(item, filter.coded)) return false;
    if (!priorMatches(item, filter.prior)) return false;
    if (filter.search) {
      var haystack = [text(item.q), text(item.a), item.o].join("\n").toLowerCase();
      if (haystack.indexOf(filter.search) < 0) return false;
    }
    return true;
  }

  function currentFilter() {
    return {
      model: selected(controls.model),
      environment: selected(controls.environment),
      variant: selected(controls.variant),
      party: selected(controls.party),
      subQuestion: selected(controls.subQuestion),
      verdict: controls.verdict.value,
      judges: controls.judges.value,
      coded: controls.coded.value,
      prior: controls.prior.value,
      search: controls.search.value.trim().toLowerCase()
    };
  }

  function badge(kind, label) {
    return node("span", "badge " + kind, [label]);
  }

  function renderContext(item) {
    var chunks = D.contexts[item.x];
    var details = node("details", "context", [
      node("summary", null, ["Context (" + chunks.length + (chunks.length === 1 ? " chunk)" : " chunks)")])
    ]);
    if (chunks.length === 0) {
      details.append(node("p", "small", ["No evidence was given to the model (the context is the placeholder “No relevant documents found.”)."]));
      return details;
    }
    var list = node("ol", "chunks");
    chunks.forEach(function (chunk) {
      var role = chunk[1] === "d" ? "DISTRACTOR" : "TARGET";
      list.append(node("li", chunk[1] === "d" ? "distractor" : "target", [
        node("span", "role", ["[" + role + "]"]),
        iso(text(chunk[0]))
      ]));
    });
    details.append(list);
    return details;
  }

  function judgeColumns(item) {
    var seen = [];
    item.j.forEach(function (record) {
      if (seen.indexOf(record[1]) < 0) seen.push(record[1]);
    });
    return seen;
  }

  function renderVerdicts(item) {
    var judges = judgeColumns(item);
    var head = node("tr", null, [node("th", "sq", ["Sub-question"]), node("th", null, ["Final"])]);
    judges.forEach(function (j) {
      head.append(node("th", null, [iso(D.judges[j], NAME_LIMIT)]));
    });
    var table = node("table", "verdicts", [node("thead", null, [head])]);
    var body = node("tbody");
    var yesPasses = D.yesPasses[item.e];
    D.rubrics.forEach(function (rubric, r) {
      var rows = [];
      D.subQuestions.forEach(function (sq, i) {
        if (sq[3] !== r) return;
        var asked = item.j.some(function (rec) { return rec[0] === r && rec[3].charAt(i) !== "-"; });
        var mark = item.c.charAt(i);
        if (mark === "-" && !asked) return;
        var label = node("td", "sq", [sq[1] + " " + sq[2]]);
        label.title = sq[4];
        var row = node("tr", null, [label]);
        var final = node("td", mark === "P" ? "v-pass" : mark === "F" ? "v-fail" : "", [
          mark === "P" ? "pass" : mark === "F" ? "fail" : "–"
        ]);
        row.append(final);
        judges.forEach(function (j) {
          var record = item.j.find(function (rec) { return rec[0] === r && rec[1] === j; });
          var says = record ? record[3].charAt(i) : "-";
          var cell;
          if (says === "Y" || says === "N") {
            var passes = yesPasses.charAt(i) === says;
            cell = node("td", passes ? "v-pass" : "v-fail", [(says === "Y" ? "Yes" : "No") + (passes ? " ✓" : " ✗")]);
          } else if (says === "?") {
            cell = node("td", "v-missing", ["unreadable"]);
          } else {
            cell = node("td", null, ["–"]);
          }
          row.append(cell);
        });
        rows.push(row);
      });
      if (rows.length) {
        var title = node("td", null, [rubric[1]]);
        title.colSpan = 2 + judges.length;
        body.append(node("tr", "rubric-row", [title]));
        rows.forEach(function (row) { body.append(row); });
      }
    });
    table.append(body);
    return table;
  }

  function renderRaw(item) {
    if (!item.j.length) {
      return node("p", "small", [
        D.hasJudges
          ? "No judge verdicts were recorded for this answer."
          : "Individual judge verdicts are not part of this source (an authors' release has only the final aggregated verdicts)."
      ]);
    }
    var grid = node("div", "raw-grid");
    item.j.forEach(function (record) {
      var box = node("div", "raw-record", [
        node("h4", null, [D.rubrics[record[0]][1] + " — ", iso(D.judges[record[1]], NAME_LIMIT)])
      ]);
      if (record[4] !== null && record[4] !== undefined) {
        box.append(node("p", "answer-error", ["Call error: ", iso(text(record[4]))]));
      }
      box.append(node("pre", "raw-output", [record[2] === null ? "(no output)" : iso(text(record[2]))]));
      grid.append(box);
    });
    return node("details", "raw", [node("summary", null, ["Raw judge outputs (" + item.j.length + ")"]), grid]);
  }

  function renderItem(item) {
    var verdict = verdictOf(item, null);
    var env = D.environments[item.e][1];
    var party = D.parties[item.p][1];
    var article = node("article", "item " + verdict, [
      node("header", null, [
        node("span", "title", [iso(D.models[item.m][1], NAME_LIMIT), " · " + env + " · ", iso(party, NAME_LIMIT)]),
        node("span", "meta", [D.variants[item.v][1] + " · ", iso(item.o, NAME_LIMIT), item.n ? " · sample " + item.n : null]),
        badge(verdict, verdict === "none" ? "not scored" : verdict === "pass" ? "all pass" : "fails"),
        item.d ? badge("split", "judges disagree") : null
      ]),
      node("p", "statement", [node("b", null, ["Statement: "]), iso(text(item.q))])
    ]);
    var facts = " · Real stance: " + item.s;
    if (item.t) facts += " · Expected stance: " + item.t;
    if (item.g !== null && item.g !== undefined) facts += " · Vagueness mode " + item.g;
    if (item.cs !== null && item.cs !== undefined) facts += " · Coded stance: " + String(item.cs).replace("_", " ");
    if (item.ps !== null && item.ps !== undefined) facts += " · Prior: " + item.ps;
    article.append(node("p", "facts", ["Party as named to the model: ", iso(item.l, NAME_LIMIT), facts]));
    article.append(renderContext(item));
    article.append(node("div", "answer", [node("b", null, ["Answer"])]));
    if (item.f !== null && item.f !== undefined) {
      article.append(node("p", "answer-error", ["No usable answer: ", iso(text(item.f))]));
    }
    if (item.a !== null && item.a !== undefined) {
      article.append(node("pre", "answer-text", [iso(text(item.a))]));
      if (item.k) {
        article.append(node("p", "answer-cut", [
          "Cut at the model's max_tokens: the answer stops where the model was stopped, and the judges saw it so."]));
      }
    }
    article.append(renderVerdicts(item));
    article.append(renderRaw(item));
    return article;
  }

  var list = document.getElementById("b-list");
  var count = document.getElementById("b-count");
  var pageLabel = document.getElementById("b-page");
  var previous = document.getElementById("b-prev");
  var next = document.getElementById("b-next");

  var shownVersion = 0;  // a page of answers whose files arrive after a newer one is dropped

  function render() {
    var pages = Math.max(1, Math.ceil(state.matches.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * PAGE_SIZE;
    var shown = state.matches.slice(start, start + PAGE_SIZE);
    count.textContent = state.matches.length + " of " + D.items.length + " answers match";
    count.setAttribute("data-count", String(state.matches.length));
    pageLabel.textContent = "page " + (state.page + 1) + " of " + pages;
    previous.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
    var version = ++shownVersion;
    root.setAttribute("data-loading", "true");
    load(shown, function (failed) {
      if (version !== shownVersion) return;
      if (failed.length) {
        list.replaceChildren(node("p", "answer-error", [
          "The answers' data file " + FILES[failed[0]] + " could not be read: keep the folder " +
          "browser/ beside the page."]));
      } else {
        list.replaceChildren.apply(list, shown.map(renderItem));
      }
      root.setAttribute("data-loading", "false");
      root.setAttribute("data-ready", "true");
    });
  }

  function apply() {
    var filter = currentFilter();
    if (filter.search && !everyFileTried()) {
      // the text search reads every answer: their files first, then the current filter
      ++shownVersion;
      root.setAttribute("data-loading", "true");
      count.textContent = "Loading every answer's text to search it\u2026";
      load(D.items, apply);
      return;
    }
    state.matches = D.items.filter(function (item) { return matches(item, filter); });
    state.page = 0;
    render();
  }

  Object.keys(controls).forEach(function (name) {
    controls[name].addEventListener(name === "search" ? "input" : "change", apply);
  });
  previous.addEventListener("click", function () { state.page -= 1; render(); });
  next.addEventListener("click", function () { state.page += 1; render(); });
  apply();
})();
