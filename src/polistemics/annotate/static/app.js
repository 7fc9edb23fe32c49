// The annotation page: one item at a time, keyboard first. Every text from the server goes into
// the DOM through textContent, never as markup. Each label is POSTed when given; the page keeps
// only the annotator's name (localStorage) and the items visited in this tab (for the arrows).
"use strict";

(function () {
  const NAME_KEY = "polistemics.annotator";
  const $ = (id) => document.getElementById(id);
  const state = {
    annotator: "",
    item: null, // the item shown (blind until complete)
    focus: 0, // index of the focused sub-question
    history: [], // sample ids visited in this tab, in order
    at: -1, // position of the shown item in history
    queue: Promise.resolve(), // keys are acted on one after another, none dropped
  };

  function text(el, value) {
    el.textContent = value === null || value === undefined ? "" : String(value);
    return el;
  }

  function element(tag, className, value) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (value !== undefined) text(el, value);
    return el;
  }

  function say(message) {
    const box = $("message");
    text(box, message);
    box.hidden = !message;
  }

  async function call(method, url, body) {
    const options = { method, headers: { Accept: "application/json" } };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, options);
    } catch (err) {
      return { ok: false, data: { error: "the server cannot be reached; nothing was saved" } };
    }
    let data = {};
    try {
      data = await response.json();
    } catch (err) {
      data = { error: `the server answered ${response.status} without JSON` };
    }
    return { ok: response.ok, data };
  }

  function query(params) {
    const search = new URLSearchParams(params);
    return search.toString();
  }

  function showProgress(progress) {
    if (!progress) return;
    text($("progress"), `${progress.done} of ${progress.available} done`);
    $("progress").dataset.done = String(progress.done);
  }

  function renderContext(item) {
    const list = $("item-context");
    list.replaceChildren();
    for (const chunk of item.context) {
      const li = element("li", `chunk ${chunk.role === "target" ? "target" : "distractor"}`);
      li.append(element("span", "chunk-label", chunk.label), " ");
      li.append(element("span", "chunk-text", chunk.text));
      list.append(li);
    }
    const placeholder = $("item-placeholder");
    text(placeholder, item.context_placeholder);
    placeholder.hidden = !item.context_placeholder;
  }

  function renderQuestions(item) {
    const list = $("item-questions");
    list.replaceChildren();
    item.sub_questions.forEach((sq, i) => {
      const li = element("li", "question");
      li.dataset.code = sq.code;
      li.dataset.index = String(i);
      li.append(element("span", "q-code", sq.code), " ", element("span", "q-text", sq.question));
      const given = item.labels[sq.code];
      const controls = element("div", "q-controls");
      const yes = element("button", "yes", "Yes (Y)");
      const no = element("button", "no", "No (N)");
      yes.type = no.type = "button";
      yes.addEventListener("click", () => enqueue(() => { setFocus(i); return answer(true); }));
      no.addEventListener("click", () => enqueue(() => { setFocus(i); return answer(false); }));
      const note = element("input", "note");
      note.placeholder = "Optional note (T)";
      note.maxLength = 2000;
      note.setAttribute("aria-label", `Note on ${sq.code}`);
      note.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === "Escape") {
          event.preventDefault();
          note.blur();
        }
      });
      controls.append(yes, no, note);
      li.append(controls);
      if (given) markAnswered(li, given);
      li.addEventListener("click", () => setFocus(i));
      list.append(li);
    });
  }

  function markAnswered(li, label) {
    li.classList.add("answered", label.says_yes ? "said-yes" : "said-no");
    li.dataset.answer = label.says_yes ? "yes" : "no";
    for (const button of li.querySelectorAll("button")) button.disabled = true;
    const note = li.querySelector("input.note");
    note.value = label.note || "";
    note.disabled = true;
  }

  // The server sends a reveal only when its policy allows (docs/annotation-app.md, "Blind").
  function fillRevealTable(table, reveal) {
    const headRow = element("tr");
    headRow.append(element("th", "", "Question"), element("th", "", "You"));
    for (const judge of reveal.judges) headRow.append(element("th", "", judge));
    headRow.append(element("th", "", "Panel majority"));
    const head = element("thead");
    head.append(headRow);
    const body = element("tbody");
    for (const row of reveal.rows) {
      const tr = element("tr");
      tr.append(element("th", "", row.code), element("td", "", row.you));
      for (const verdict of row.judges) tr.append(element("td", "", verdict));
      tr.append(element("td", "", row.majority));
      body.append(tr);
    }
    table.replaceChildren(head, body);
  }

  function renderReveal(reveal) {
    const box = $("reveal");
    if (!reveal) {
      box.hidden = true;
      return;
    }
    text($("reveal-model"), reveal.model);
    fillRevealTable($("reveal-table"), reveal);
    box.hidden = false;
  }

  async function showReveals() {
    const box = $("reveals");
    box.hidden = true;
    const { ok, data } = await call("GET", `/api/reveals?${query({ annotator: state.annotator })}`);
    if (!ok || !data.items) return;
    const list = $("reveals-list");
    list.replaceChildren();
    for (const entry of data.items) {
      const article = element("article", "revealed");
      article.dataset.sampleId = entry.sample_id;
      article.append(
        element("h3", "", `${entry.sample_id}: ${entry.task_label}, ${entry.rubric_label} (${entry.environment_label})`),
        element("p", "", `Target model: ${entry.reveal.model}`),
      );
      const table = element("table");
      fillRevealTable(table, entry.reveal);
      article.append(table);
      list.append(article);
    }
    const waiting = $("reveals-waiting");
    text(
      waiting,
      data.waiting
        ? `${data.waiting} of your items are still being labelled by others; their verdicts are shown once that is done.`
        : "",
    );
    waiting.hidden = !data.waiting;
    box.hidden = data.items.length === 0 && !data.waiting;
  }

  function render(payload) {
    const item = payload.item;
    state.item = item;
    showProgress(payload.progress);
    $("done").hidden = item !== null;
    $("item").hidden = item === null;
    if (item === null) {
      if (payload.shows_verdicts && payload.assignment_done) return showReveals();
      return;
    }
    $("item").dataset.sampleId = item.sample_id;
    text($("item-id"), item.sample_id);
    text($("item-rubric"), item.rubric_label);
    text($("item-task"), item.task_label);
    text($("item-environment"), item.environment_label);
    text($("item-language"), item.language);
    text($("item-question"), item.query);
    text($("item-answer"), item.answer);
    text($("item-definition"), item.rubric_definition);
    text($("item-property"), item.property_of_context);
    renderContext(item);
    renderQuestions(item);
    updateState();
    renderReveal(payload.reveal || null);
    const open = item.sub_questions.findIndex((sq) => !item.labels[sq.code]);
    setFocus(open === -1 ? 0 : open);
  }

  function updateState() {
    const item = state.item;
    const given = item.sub_questions.filter((sq) => item.labels[sq.code]).length;
    const complete = given === item.sub_questions.length;
    $("item").dataset.complete = String(complete);
    text(
      $("item-state"),
      complete
        ? "You answered every question; press → for the next item."
        : `${given} of ${item.sub_questions.length} questions answered.`,
    );
  }

  function setFocus(index) {
    const rows = $("item-questions").children;
    if (!rows.length) return;
    state.focus = Math.max(0, Math.min(index, rows.length - 1));
    for (const row of rows) row.classList.toggle("focused", row.dataset.index === String(state.focus));
    rows[state.focus].scrollIntoView({ block: "nearest" });
  }

  // Every action waits for the one before it (a label POST, an item load), so keys typed
  // faster than the server answers are applied in order to what they were meant for.
  function enqueue(action) {
    state.queue = state.queue.then(action).catch((err) => say(`Unexpected error: ${err}`));
    return state.queue;
  }

  async function load(url, remember) {
    const { ok, data } = await call("GET", url);
    if (!ok) {
      say(data.error || "the item could not be loaded");
      return;
    }
    say("");
    if (data.item && remember) {
      state.history = state.history.slice(0, state.at + 1);
      state.history.push(data.item.sample_id);
      state.at = state.history.length - 1;
    }
    return render(data);
  }

  // The task filter (issue 29): only items of the chosen task; "" is every task.
  function chosenTask() {
    const select = $("task-filter");
    return select ? select.value : "";
  }

  function nextItem() {
    const params = { annotator: state.annotator };
    if (state.item) params.after = state.item.sample_id;
    if (chosenTask()) params.task = chosenTask();
    return load(`/api/next?${query(params)}`, true);
  }

  function forward() {
    if (state.at + 1 < state.history.length) {
      state.at += 1;
      return load(`/api/item/${encodeURIComponent(state.history[state.at])}?${query({ annotator: state.annotator })}`, false);
    }
    return nextItem();
  }

  function back() {
    // From the "no item left" page, ← shows the last item again.
    if (state.item !== null || state.at < 0) {
      if (state.at <= 0) return;
      state.at -= 1;
    }
    return load(`/api/item/${encodeURIComponent(state.history[state.at])}?${query({ annotator: state.annotator })}`, false);
  }

  async function answer(saysYes) {
    const item = state.item;
    if (!item) return;
    const sq = item.sub_questions[state.focus];
    if (item.labels[sq.code]) {
      say(`${sq.code} is already answered; a given label is not changed.`);
      return;
    }
    const row = $("item-questions").children[state.focus];
    const note = row.querySelector("input.note").value.trim();
    const { ok, data } = await call("POST", "/api/label", {
      annotator: state.annotator,
      sample_id: item.sample_id,
      sub_question: sq.code,
      says_yes: saysYes,
      note: note || null,
    });
    if (!ok) {
      say(`Not saved: ${data.error || "refused"}`);
      return;
    }
    say("");
    item.labels[sq.code] = data.label;
    markAnswered(row, data.label);
    showProgress(data.progress);
    updateState();
    const open = item.sub_questions.findIndex((q) => !item.labels[q.code]);
    if (open !== -1) setFocus(open);
  }

  function onKey(event) {
    if (!state.annotator || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) return;
    const key = event.key;
    const actions = {
      y: () => answer(true),
      n: () => answer(false),
      ArrowDown: () => setFocus(state.focus + 1),
      ArrowUp: () => setFocus(state.focus - 1),
      ArrowRight: () => forward(),
      ArrowLeft: () => back(),
      s: () => nextItem(),
    };
    const name = key.length === 1 ? key.toLowerCase() : key;
    if (name === "t") {
      // at once, not queued: the characters typed next must land in the note
      const row = $("item-questions").children[state.focus];
      const note = row && row.querySelector("input.note");
      if (note && !note.disabled) {
        event.preventDefault();
        note.focus();
      }
      return;
    }
    const action = actions[name];
    if (!action || (!state.item && !["s", "ArrowRight", "ArrowLeft"].includes(name))) return;
    event.preventDefault();
    enqueue(action);
  }

  function start(name) {
    state.annotator = name;
    localStorage.setItem(NAME_KEY, name);
    text($("whoami"), `Labelling as ${name}`);
    $("whoami").hidden = false;
    $("annotator").blur();
    state.history = [];
    state.at = -1;
    state.item = null;
    enqueue(nextItem).then(() => {
      document.body.dataset.ready = "true";
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("who").addEventListener("submit", (event) => {
      event.preventDefault();
      const name = $("annotator").value.trim();
      if (!name) {
        say("Enter your name first.");
        return;
      }
      start(name);
    });
    document.addEventListener("keydown", onKey);
    const filter = $("task-filter");
    if (filter) {
      filter.addEventListener("change", () => {
        filter.blur();
        if (!state.annotator) return;
        state.item = null; // the next item of the chosen task, from the first in draw order
        enqueue(nextItem);
      });
    }
    const saved = localStorage.getItem(NAME_KEY);
    if (saved) {
      $("annotator").value = saved;
      start(saved);
    } else {
      document.body.dataset.ready = "true";
    }
  });
})();
