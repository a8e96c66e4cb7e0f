// hob's page: the chat (streamed over SSE, Markdown sanitised by DOMPurify),
// the views the sidebar links to, and the glue htmx does not do. Plain JS,
// no build step; everything it loads comes from hob itself.

import { marked } from "./marked.js";

/** DOMPurify's minified build (a classic script, loaded first) defines it. */
const DOMPurify = globalThis.DOMPurify;

const $ = (selector, root = document) => root.querySelector(selector);
const PANELS = [
  "memory",
  "schedules",
  "tasks",
  "approvals",
  "tools",
  "skills",
  "notifications",
  "channels",
  "usage",
  "backups",
];
/** Every request that changes something carries this header (the server refuses session writes without it). */
const PAGE_HEADERS = { "x-hob-request": "1" };

const state = {
  conversationId: null,
  /** The model chosen in the picker for the next turn ("" = the conversation's or the default). */
  model: "",
  defaultModel: "",
  controller: null,
  stick: true,
};

const els = {
  chatView: $("#chat-view"),
  panel: $("#panel"),
  title: $("#chat-title"),
  rename: $("#rename"),
  messages: $("#messages"),
  inner: $("#messages-inner"),
  form: $("#composer"),
  input: $("#composer-input"),
  send: $("#send"),
  stop: $("#stop"),
  model: $("#model-select"),
  refresh: $("#refresh-models"),
  banner: $("#model-banner"),
  attach: $("#attach"),
  attachInput: $("#attach-input"),
  pending: $("#pending-attachments"),
  mic: $("#mic"),
  micTime: $("#mic .mic-time"),
  voiceMode: $("#voice-mode"),
  stopSpeaking: $("#stop-speaking"),
  voiceStatus: $("#voice-status"),
};

/** Files chosen or dropped, sent with the next message. */
const pending = [];

// ---------------------------------------------------------------- API

/** A request to hob as the page sends it (its header, a JSON body); a refusal is thrown with hob's reason. */
async function request(path, init = {}) {
  const headers = {
    ...PAGE_HEADERS,
    ...(init.json ? { "content-type": "application/json" } : {}),
    ...init.headers,
  };
  const response = await fetch(path, {
    ...init,
    headers,
    body: init.json ? JSON.stringify(init.json) : init.body,
  });
  if (response.status === 401) {
    location.reload();
    throw new Error("signed out");
  }
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  }
  return response;
}

/** A request to hob's API, answered in JSON. */
async function api(path, init = {}) {
  const response = await request(path, init);
  return response.status === 204 ? null : response.json();
}

// ---------------------------------------------------------------- Markdown

marked.use({ gfm: true, breaks: false });
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.getAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** Model output as safe HTML: Markdown parsed, then sanitised — nothing in it can run. */
function renderMarkdown(target, text) {
  const html = DOMPurify.sanitize(marked.parse(text), { USE_PROFILES: { html: true } });
  target.innerHTML = html;
  // A table scrolls sideways inside the reply instead of widening it (and a phone's page).
  for (const table of target.querySelectorAll("table")) {
    const wrap = el("div", "table-wrap");
    table.replaceWith(wrap);
    wrap.append(table);
  }
  for (const pre of target.querySelectorAll("pre")) {
    // The language marked says which, in the strip above the code (CSS shows it, nothing reads it aloud).
    const language = /\blanguage-([\w+#.-]+)/.exec(pre.querySelector("code")?.className ?? "");
    pre.dataset.lang = language?.[1] ?? "code";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy code");
    button.addEventListener("click", async () => {
      await navigator.clipboard.writeText(
        pre.querySelector("code")?.textContent ?? pre.textContent,
      );
      button.textContent = "Copied";
      setTimeout(() => button.textContent = "Copy", 1_500);
    });
    pre.append(button);
  }
}

// ---------------------------------------------------------------- Rendering

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function scrollToEnd() {
  if (state.stick) els.messages.scrollTop = els.messages.scrollHeight;
}

els.messages.addEventListener("scroll", () => {
  const { scrollTop, clientHeight, scrollHeight } = els.messages;
  state.stick = scrollTop + clientHeight >= scrollHeight - 40;
});

function clearMessages() {
  els.inner.replaceChildren();
  state.stick = true;
}

function showWelcome() {
  const welcome = el("div", "welcome");
  welcome.append(
    el("h2", "", "What can I do for you?"),
    el(
      "p",
      "",
      "Ask hob anything. It can use tools, remember things, and work deferred, while nobody waits.",
    ),
  );
  els.inner.replaceChildren(welcome);
}

function addUserMessage(text, attachments = []) {
  $(".welcome", els.inner)?.remove();
  const node = el("div", "msg user", text);
  if (attachments.length) node.append(attachmentList(attachments));
  els.inner.append(node);
  scrollToEnd();
  return node;
}

/** Sent files: images as thumbnails, anything else as a link that downloads it. */
function attachmentList(attachments) {
  const list = el("div", "attachments");
  for (const a of attachments) {
    const link = el("a", a.type.startsWith("image/") ? "" : "chip");
    link.href = `/api/${a.path.split("/").map(encodeURIComponent).join("/")}`;
    link.target = "_blank";
    link.rel = "noopener";
    if (a.type.startsWith("image/")) {
      const img = el("img", "thumb");
      img.src = link.href;
      img.alt = a.name;
      img.loading = "lazy";
      link.append(img);
    } else link.textContent = `${a.name} · ${formatSize(a.size)}`;
    list.append(link);
  }
  return list;
}

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function addFiles(files) {
  for (const file of files) pending.push(file);
  renderPending();
}

function renderPending() {
  els.pending.hidden = pending.length === 0;
  els.pending.replaceChildren(...pending.map((file, index) => {
    const chip = el("li", "chip", `${file.name} · ${formatSize(file.size)}`);
    const remove = el("button", "", "×");
    remove.type = "button";
    remove.setAttribute("aria-label", `Remove ${file.name}`);
    remove.addEventListener("click", () => {
      pending.splice(index, 1);
      renderPending();
    });
    chip.append(remove);
    return chip;
  }));
}

/** Sends the chosen files to hob; their paths go with the message. They stay chosen until it is accepted. */
async function uploadPending() {
  if (pending.length === 0) return [];
  const form = new FormData();
  for (const file of pending) form.append("file", file);
  const { uploads } = await api("/api/uploads", { method: "POST", body: form });
  return uploads;
}

els.attach.addEventListener("click", () => els.attachInput.click());
els.attachInput.addEventListener("change", () => {
  addFiles(els.attachInput.files);
  els.attachInput.value = "";
  els.input.focus();
});
els.chatView.addEventListener("dragover", (event) => {
  if (![...event.dataTransfer.types].includes("Files")) return;
  event.preventDefault();
  els.chatView.classList.add("dropping");
});
els.chatView.addEventListener("dragleave", (event) => {
  if (!els.chatView.contains(event.relatedTarget)) els.chatView.classList.remove("dropping");
});
els.chatView.addEventListener("drop", (event) => {
  event.preventDefault();
  els.chatView.classList.remove("dropping");
  if (event.dataTransfer.files.length) addFiles(event.dataTransfer.files);
  els.input.focus();
});

/**
 * An assistant reply whose Markdown re-renders (at most once a frame) as text
 * streams in; once written, a button reads it aloud.
 */
function addAssistantMessage(initial = "") {
  const node = el("div", "msg assistant");
  const body = el("div", "markdown");
  const footer = el("div", "reply-footer");
  const meta = el("div", "meta");
  footer.append(meta);
  node.append(body, footer);
  els.inner.append(node);
  let text = initial;
  let queued = false;
  const paint = () => {
    queued = false;
    renderMarkdown(body, text);
    scrollToEnd();
  };
  /** Reads what the page shows of the reply, not its Markdown. */
  const readAloud = () => {
    if (queued) paint();
    speak(speechText(body), $(".play", footer));
  };
  const written = () => {
    if (text.trim() && !$(".play", footer)) footer.prepend(playButton(readAloud));
  };
  if (initial) {
    paint();
    written();
  }
  return {
    node,
    get text() {
      return text;
    },
    append(piece) {
      text += piece;
      if (!queued) {
        queued = true;
        requestAnimationFrame(paint);
      }
    },
    streaming(on) {
      body.classList.toggle("cursor", on);
      if (!on) written();
    },
    readAloud,
    meta(line) {
      meta.textContent = line;
    },
    /** The reply failed: why, under what it had written. */
    fail(message) {
      node.classList.add("failed");
      const why = $(".error", node) ?? el("p", "error");
      why.textContent = message;
      if (!why.isConnected) node.insertBefore(why, footer);
    },
  };
}

const cards = new Map();

/** A collapsible card for a tool call: its arguments, then its result and duration. */
function addToolCard(id, name, args) {
  const card = el("details", "tool running");
  const summary = el("summary");
  const chevron = el("span", "chevron", "›");
  chevron.setAttribute("aria-hidden", "true");
  summary.append(
    chevron,
    el("span", "", "Tool"),
    el("span", "name", name),
    el("span", "state", "running…"),
  );
  card.append(summary, el("h3", "", "Arguments"), el("pre", "args", prettyJson(args)));
  card.dataset.toolCallId = id;
  els.inner.append(card);
  cards.set(id, card);
  scrollToEnd();
  return card;
}

/** A tool's result: its text, or the server's `display` parts when outside text is in it. */
function finishToolCard(id, name, result, isError, durationMs) {
  const card = cards.get(id) ?? addToolCard(id, name, "");
  card.classList.remove("running");
  card.classList.add(isError ? "failed" : "done");
  const stateText = `${isError ? "error" : "done"}${
    durationMs != null ? ` · ${formatMs(durationMs)}` : ""
  }`;
  $(".state", card).textContent = stateText;
  const pre = el("pre", "result");
  pre.append(...resultNodes(result));
  card.append(el("h3", "", isError ? "Error" : "Result"), pre);
  scrollToEnd();
}

/** Outside text after a small marker naming where it came from; the model's labels never show. */
function resultNodes(result) {
  if (typeof result === "string") return [result];
  return result.flatMap((part) =>
    part.source === null
      ? [part.text]
      : [el("span", "source", `from ${part.source}`), el("span", "untrusted", part.text)]
  );
}

function addApproval(event) {
  const box = el("div", "approval");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", `Approval for ${event.name}`);
  box.dataset.approvalId = event.approval_id;
  const text = el("p");
  text.append(
    "hob wants to run ",
    el("code", "", event.name),
    event.reason ? ` — ${event.reason}` : "",
    ".",
  );
  const args = el("pre", "", prettyJson(event.arguments));
  const actions = el("div", "actions");
  const decide = (decision, remember) => async () => {
    for (const b of actions.querySelectorAll("button")) b.disabled = true;
    try {
      await api(`/api/approvals/${encodeURIComponent(event.approval_id)}`, {
        method: "POST",
        json: { decision, remember },
      });
    } catch (error) {
      text.textContent = `Could not decide: ${error.message}`;
    }
  };
  const approve = el("button", "primary", "Approve");
  approve.type = "button";
  approve.addEventListener("click", decide("approve", false));
  const always = el("button", "", "Always allow");
  always.type = "button";
  always.addEventListener("click", decide("approve", true));
  const deny = el("button", "danger", "Deny");
  deny.type = "button";
  deny.addEventListener("click", decide("deny", false));
  actions.append(approve, always, deny);
  box.append(text, args, actions);
  els.inner.append(box);
  scrollToEnd();
  approve.focus({ preventScroll: true });
}

function resolveApproval(event) {
  const box = els.inner.querySelector(`[data-approval-id="${CSS.escape(event.approval_id)}"]`);
  if (!box) return;
  box.querySelector(".actions")?.remove();
  box.append(
    el(
      "p",
      "muted",
      event.status === "approved"
        ? "Approved."
        : event.status === "denied"
        ? "Denied."
        : "No decision in time.",
    ),
  );
  htmx.trigger(document.body, "hob:badges");
}

function addNotice(text, info = false) {
  els.inner.append(el("div", `notice${info ? " info" : ""}`, text));
  scrollToEnd();
}

function prettyJson(text) {
  if (typeof text !== "string") return JSON.stringify(text, null, 2);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function formatMs(ms) {
  return ms >= 1_000 ? `${(ms / 1_000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

function usageLine(model, usage, ms) {
  const parts = [model];
  if (usage) parts.push(`${usage.input_tokens} in · ${usage.output_tokens} out tokens`);
  if (ms != null) parts.push(formatMs(ms));
  return parts.filter(Boolean).join(" · ");
}

/** A stored conversation, with its tool calls as cards next to their results. */
function renderHistory(messages) {
  clearMessages();
  cards.clear();
  if (messages.length === 0) return showWelcome();
  for (const message of messages) {
    if (message.role === "user") {
      // The lines naming the files are for the model; the page shows the files themselves.
      const text = message.attachments?.length
        ? message.content.split(/\n\n(?:<untrusted source="upload">\n)?\[Attached /)[0]
        : message.content;
      addUserMessage(text, message.attachments ?? []);
    } else if (message.role === "assistant") {
      if (message.content || message.status === "error") {
        const reply = addAssistantMessage(message.content);
        const notes = [];
        if (message.status === "interrupted") notes.push("stopped");
        if (message.status === "error") {
          notes.push("failed");
          reply.fail(message.error?.message ?? "The reply failed.");
        }
        reply.meta(
          [usageLine(message.model, message.output_tokens != null ? message : null), ...notes]
            .filter(Boolean).join(" · "),
        );
      }
      for (const call of message.tool_calls ?? []) addToolCard(call.id, call.name, call.arguments);
    } else if (message.role === "tool") {
      finishToolCard(
        message.tool_call_id,
        message.tool_name,
        message.display ?? message.content,
        message.is_error,
        null,
      );
    }
  }
  state.stick = true;
  scrollToEnd();
}

// ---------------------------------------------------------------- Streaming a turn

/** Reads server-sent events from a fetch response. */
async function* readEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let type = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) type = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield { type, data: JSON.parse(data.join("\n")) };
    }
  }
}

function setBusy(busy) {
  els.send.hidden = busy;
  els.stop.hidden = !busy;
  els.input.setAttribute("aria-busy", String(busy));
}

async function send(text) {
  stopSpeaking();
  const controller = new AbortController();
  state.controller = controller;
  setBusy(true);
  let attachments = [];
  try {
    attachments = await uploadPending();
  } catch (error) {
    addNotice(`Could not send the files: ${error.message}`);
    state.controller = null;
    setBusy(false);
    return;
  }
  const started = performance.now();
  let reply = null;
  let model = "";
  let sent = false;
  const body = { message: text };
  if (attachments.length) body.attachments = attachments.map((a) => a.path);
  if (state.conversationId) body.conversation_id = state.conversationId;
  if (state.model) body.model = state.model;
  try {
    const response = await fetch("/api/chat", {
      method: "POST",
      headers: { ...PAGE_HEADERS, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!response.ok) {
      const problem = await response.json().catch(() => ({}));
      throw new Error(problem.error?.message ?? `HTTP ${response.status}`);
    }
    accepted(text, attachments);
    sent = true;
    for await (const { type, data } of readEvents(response)) {
      switch (type) {
        case "start": {
          model = data.model;
          if (state.conversationId !== data.conversation_id) {
            state.conversationId = data.conversation_id;
            history.pushState({}, "", `/c/${data.conversation_id}`);
            els.title.textContent = text.slice(0, 60);
            htmx.trigger(document.body, "hob:conversations");
          }
          break;
        }
        case "text":
          if (!reply) {
            reply = addAssistantMessage();
            reply.streaming(true);
          }
          reply.append(data.text);
          break;
        case "tool_call":
          if (reply) reply.streaming(false);
          reply = null;
          addToolCard(data.id, data.name, data.arguments);
          break;
        case "tool_result":
          finishToolCard(
            data.tool_call_id,
            data.name,
            data.display ?? data.content,
            data.is_error,
            data.duration_ms,
          );
          break;
        case "approval_required":
          addApproval(data);
          htmx.trigger(document.body, "hob:badges");
          break;
        case "approval_resolved":
          resolveApproval(data);
          break;
        case "notice":
          // An answer claiming a save that did not happen was taken back, as a reload shows it.
          if (data.code === "unsaved_claim") {
            reply?.node.remove();
            reply = null;
          }
          // A taint the conversation had already was told on the turn that first read it.
          if (!data.repeat) addNotice(data.message, true);
          break;
        case "title":
          // The model named the new conversation.
          if (data.conversation_id === state.conversationId) els.title.textContent = data.title;
          break;
        case "error":
          // Shown as the reply that failed, as the conversation shows it after a reload.
          reply ??= addAssistantMessage();
          reply.fail(data.message);
          break;
        case "done": {
          const line = usageLine(model, data.usage, performance.now() - started);
          const target = reply ?? addAssistantMessage();
          target.streaming(false);
          const note = { interrupted: " · stopped", error: " · failed" }[data.status] ?? "";
          target.meta(`${line}${note}`);
          // Voice mode reads a finished reply, never one stopped or failed.
          if (voice.on && !note && target.text.trim()) target.readAloud();
          htmx.trigger(document.body, "hob:conversations");
          break;
        }
      }
    }
  } catch (error) {
    if (error.name === "AbortError") {
      reply?.streaming(false);
      addNotice("Stopped.", true);
    } else if (sent) addNotice(`Could not send: ${error.message}`);
    else addNotice(`Not sent — your message is still in the box. ${error.message}`);
  } finally {
    reply?.streaming(false);
    state.controller = null;
    setBusy(false);
    els.input.focus();
  }
}

els.form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = els.input.value.trim() || (pending.length ? "Here are the attached files." : "");
  if (!text || state.controller) return;
  // Sending (a tap or Enter) may end in a reply read aloud: let the phone play it then.
  if (voice.on) unlockAudio();
  send(text);
});

/** hob took the message: it joins the conversation, and the box and the files are cleared. */
function accepted(text, attachments) {
  if (els.input.value.trim() === text) {
    els.input.value = "";
    growInput();
  }
  pending.length = 0;
  renderPending();
  addUserMessage(text, attachments);
  state.stick = true;
}

els.input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    els.form.requestSubmit();
  }
});

function growInput() {
  els.input.style.height = "auto";
  els.input.style.height = `${Math.min(els.input.scrollHeight, 224)}px`;
}
els.input.addEventListener("input", growInput);

els.stop.addEventListener("click", () => state.controller?.abort());

// ---------------------------------------------------------------- Models

async function loadModels(refresh = false) {
  els.refresh.disabled = true;
  try {
    const report = await api(`/api/models${refresh ? "?refresh=1" : ""}`);
    state.defaultModel = report.default;
    const current = els.model.value;
    els.model.replaceChildren();
    const ids = new Set(report.models.map((m) => m.id));
    const add = (parent, id, label) => {
      const option = el("option", "", label ?? id);
      option.value = id;
      parent.append(option);
    };
    add(els.model, "", `Default (${report.default})`);
    const byProvider = Map.groupBy(report.models, (m) => m.provider);
    for (const [provider, models] of byProvider) {
      const group = document.createElement("optgroup");
      group.label = provider;
      for (const m of models) add(group, m.id);
      els.model.append(group);
    }
    if (current && !ids.has(current)) add(els.model, current);
    els.model.value = current;
    const reachable = report.providers.filter((p) => p.ok);
    els.banner.hidden = reachable.length > 0;
    if (reachable.length === 0) {
      els.banner.replaceChildren(
        el("strong", "", "No model provider answered. "),
        // The server's words, the ones `hob serve` printed as it started.
        `${report.advice ?? ""} Then press ↻; `,
        el("code", "", "hob doctor"),
        " says what is wrong.",
      );
    }
  } catch (error) {
    els.banner.hidden = false;
    els.banner.textContent = `Could not list models: ${error.message}`;
  } finally {
    els.refresh.disabled = false;
  }
}

els.refresh.addEventListener("click", () => loadModels(true));
els.model.addEventListener("change", async () => {
  state.model = els.model.value;
  if (state.conversationId) {
    await api(`/api/conversations/${state.conversationId}/model`, {
      method: "PUT",
      json: { model: state.model || null },
    }).catch((error) => addNotice(`Could not switch the model: ${error.message}`));
  }
});

function showModel(model) {
  state.model = model ?? "";
  if (model && ![...els.model.options].some((o) => o.value === model)) {
    const option = el("option", "", model);
    option.value = model;
    els.model.append(option);
  }
  els.model.value = state.model;
}

// ---------------------------------------------------------------- Voice

/** Longest recording: a microphone left on stops (10 minutes of Opus is ~2.5 MB of the 25 MB hob takes). */
const MAX_RECORDING_MS = 10 * 60_000;
/** What MediaRecorder is asked for, best first: the formats speech-to-text servers take as they are. */
const RECORDING_TYPES = [
  "audio/webm;codecs=opus",
  "audio/ogg;codecs=opus",
  "audio/webm",
  "audio/mp4",
];
/** Text per `/v1/audio/speech` request: short, so the first words play soon (hob takes 4,096). */
const SERVER_PIECE_CHARS = 1_000;
/** Text per browser utterance: Chrome's voices fall silent ~15 s into one utterance. */
const BROWSER_PIECE_CHARS = 240;
const VOICE_MODE_KEY = "hob.voice-mode";
/** The elements that end a spoken sentence. */
const SPOKEN_BLOCKS = new Set([
  "P",
  "DIV",
  "LI",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "BLOCKQUOTE",
  "TR",
  "TH",
  "TD",
  "DT",
  "DD",
]);

const voice = {
  /** `GET /api/speech`: what hob can hear and say; null until it answers. */
  speech: null,
  /** Voice mode: replies are read aloud, and what the microphone hears is sent at once. */
  on: false,
  /** The recording under way: { stream, recorder, chunks, started, timer, cancelled }. */
  recording: null,
  /** What is being read aloud: { signal, button, stop() }. */
  speaking: null,
  /** The microphone's title while it is not recording. */
  micTitle: "",
};

/** Shows the microphone as hob and the browser allow: hidden without MediaRecorder, disabled with the reason. */
async function loadSpeech() {
  const canRecord = typeof globalThis.MediaRecorder === "function";
  els.mic.hidden = !canRecord;
  try {
    voice.speech = await api("/api/speech");
  } catch (error) {
    if (canRecord) disableMic(`hob could not say whether it hears speech: ${error.message}`);
    return;
  }
  const { transcribe } = voice.speech;
  if (!canRecord) return;
  if (!navigator.mediaDevices?.getUserMedia) {
    disableMic("The microphone needs a secure page: open hob at localhost, or over HTTPS");
  } else if (!transcribe.available) {
    disableMic(`Speech to text is not set up: ${transcribe.detail}`);
  } else {
    els.mic.disabled = false;
    voice.micTitle = `Record a message, written down by ${transcribe.by} (Escape cancels)`;
    els.mic.title = voice.micTitle;
  }
}

function disableMic(why) {
  els.mic.disabled = true;
  els.mic.title = why;
  els.mic.setAttribute("aria-label", `Record a message — unavailable. ${why}`);
}

function setVoiceStatus(text) {
  els.voiceStatus.textContent = text;
}

els.mic.addEventListener("click", () => {
  if (voice.recording) stopRecording(false);
  else startRecording();
});

document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  if (voice.recording) {
    event.preventDefault();
    stopRecording(true);
  } else if (voice.speaking) stopSpeaking();
});

/** Asks for the microphone and records until the button is pressed again (or Escape cancels). */
async function startRecording() {
  stopSpeaking();
  const recording = { chunks: [], started: 0, timer: 0, cancelled: false };
  voice.recording = recording;
  showRecording(true);
  try {
    recording.stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (error) {
    if (voice.recording === recording) stopRecording(true);
    addNotice(`Could not use the microphone: ${error.message}`);
    return;
  }
  // Stopped while the browser asked for permission: nothing was said.
  if (recording.cancelled) return stopTracks(recording.stream);
  const type = RECORDING_TYPES.find((t) => MediaRecorder.isTypeSupported(t));
  const recorder = new MediaRecorder(recording.stream, type ? { mimeType: type } : undefined);
  recording.recorder = recorder;
  recorder.addEventListener("dataavailable", (event) => {
    if (event.data.size > 0) recording.chunks.push(event.data);
  });
  recorder.addEventListener("stop", () => recorded(recording));
  recorder.start();
  recording.started = performance.now();
  recording.timer = setInterval(() => tick(recording), 250);
}

/** Ends the recording: transcribed, or dropped when `cancel` (or when recording never began). */
function stopRecording(cancel) {
  const recording = voice.recording;
  if (!recording) return;
  voice.recording = null;
  clearInterval(recording.timer);
  recording.cancelled = cancel || !recording.recorder;
  if (recording.recorder?.state === "recording") recording.recorder.stop();
  stopTracks(recording.stream);
  showRecording(false);
  if (recording.cancelled) setVoiceStatus("");
}

function stopTracks(stream) {
  for (const track of stream?.getTracks() ?? []) track.stop();
}

function tick(recording) {
  const elapsed = performance.now() - recording.started;
  const seconds = Math.floor(elapsed / 1000);
  els.micTime.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  if (elapsed >= MAX_RECORDING_MS) stopRecording(false);
}

function showRecording(on) {
  els.mic.classList.toggle("recording", on);
  els.mic.setAttribute("aria-pressed", String(on));
  els.mic.setAttribute("aria-label", on ? "Stop recording and write it down" : "Record a message");
  els.mic.title = on ? "Stop recording and write it down (Escape cancels)" : voice.micTitle;
  els.micTime.hidden = !on;
  els.micTime.textContent = "0:00";
  setVoiceStatus(on ? "Recording… press the microphone again to stop (Escape cancels)" : "");
}

/** The recorder stopped: its audio goes to hob to be written down, unless it was cancelled. */
function recorded(recording) {
  if (recording.cancelled) return;
  const type = recording.recorder.mimeType || recording.chunks[0]?.type || "audio/webm";
  const audio = new Blob(recording.chunks, { type });
  if (audio.size === 0) return addNotice("The microphone recorded nothing.");
  transcribe(audio);
}

/** The recording through `/v1/audio/transcriptions`; the words join the message box. */
async function transcribe(audio) {
  const form = new FormData();
  const extension = { "audio/ogg": "ogg", "audio/mp4": "m4a" }[audio.type.split(";")[0]] ?? "webm";
  form.append("file", audio, `recording.${extension}`);
  form.append("model", "whisper-1");
  els.mic.disabled = true;
  els.mic.setAttribute("aria-busy", "true");
  setVoiceStatus("Writing down what you said…");
  try {
    const { text } = await api("/v1/audio/transcriptions", { method: "POST", body: form });
    heard(text.trim());
  } catch (error) {
    addNotice(`Could not write down the recording: ${error.message}`);
  } finally {
    els.mic.disabled = false;
    els.mic.removeAttribute("aria-busy");
    setVoiceStatus("");
  }
}

/** Words heard: added to what the box holds; voice mode sends them at once. */
function heard(text) {
  if (!text) return addNotice("No words were heard in the recording.", true);
  const before = els.input.value;
  els.input.value = before && !/\s$/.test(before) ? `${before} ${text}` : before + text;
  growInput();
  if (voice.on && !state.controller) els.form.requestSubmit();
  else els.input.focus();
}

function setVoiceMode(on) {
  voice.on = on;
  els.voiceMode.setAttribute("aria-pressed", String(on));
  try {
    localStorage.setItem(VOICE_MODE_KEY, on ? "on" : "off");
  } catch {
    // Storage refused (a private window): voice mode lasts as long as the page.
  }
  if (!on) stopSpeaking();
}

function savedVoiceMode() {
  try {
    return localStorage.getItem(VOICE_MODE_KEY) === "on";
  } catch {
    return false;
  }
}

els.voiceMode.addEventListener("click", () => setVoiceMode(!voice.on));
els.stopSpeaking.addEventListener("click", () => stopSpeaking());
setVoiceMode(savedVoiceMode());

/** A reply's read-aloud button; while it reads, it stops. */
function playButton(readAloud) {
  const button = el("button", "play");
  button.type = "button";
  showPlaying(button, false);
  button.addEventListener("click", () => {
    if (voice.speaking?.button === button) return stopSpeaking();
    unlockAudio();
    readAloud();
  });
  return button;
}

function showPlaying(button, playing) {
  const label = playing ? "Stop reading this reply" : "Read this reply aloud";
  button.classList.toggle("playing", playing);
  button.setAttribute("aria-pressed", String(playing));
  button.setAttribute("aria-label", label);
  button.title = label;
  // The icons are the page's own: the speaker of Voice mode, the square of Stop speaking.
  button.replaceChildren($("svg", playing ? els.stopSpeaking : els.voiceMode).cloneNode(true));
}

/**
 * Reads `text` aloud — with hob's voice when hob.yaml sets one (speech.speak),
 * the browser's own otherwise — after stopping whatever was reading.
 */
async function speak(text, button = null) {
  stopSpeaking();
  if (!text) return;
  const controller = new AbortController();
  const speaking = { signal: controller.signal, button, stop: () => controller.abort() };
  voice.speaking = speaking;
  showSpeaking(speaking);
  try {
    if (!voice.speech?.speak.available) return await speakInBrowser(text, speaking.signal);
    try {
      await speakOnServer(text, speaking.signal);
    } catch (error) {
      if (speaking.signal.aborted || !globalThis.speechSynthesis) throw error;
      addNotice(`hob could not speak (${error.message}); the browser's voice reads instead.`, true);
      await speakInBrowser(text, speaking.signal);
    }
  } catch (error) {
    if (!speaking.signal.aborted) addNotice(`Could not read the reply aloud: ${error.message}`);
  } finally {
    if (voice.speaking === speaking) {
      voice.speaking = null;
      showSpeaking(null);
    }
  }
}

function stopSpeaking() {
  const speaking = voice.speaking;
  if (!speaking) return;
  voice.speaking = null;
  showSpeaking(null);
  speaking.stop();
}

function showSpeaking(speaking) {
  els.stopSpeaking.hidden = speaking === null;
  for (const button of els.inner.querySelectorAll("button.play.playing")) {
    showPlaying(button, false);
  }
  if (speaking?.button) showPlaying(speaking.button, true);
}

/** hob's voice: each piece fetched from `/v1/audio/speech` while the one before plays. */
async function speakOnServer(text, signal) {
  // Without ffmpeg a local speech program's WAV is sent as it is.
  const format = voice.speech.convert?.available ? "mp3" : "wav";
  const fetchAudio = async (input) => {
    const json = { model: "tts-1", input, response_format: format };
    return await (await request("/v1/audio/speech", { method: "POST", json, signal })).blob();
  };
  const pieces = speechPieces(text, SERVER_PIECE_CHARS);
  let next = fetchAudio(pieces[0]);
  for (let i = 0; i < pieces.length; i++) {
    const audio = await next;
    if (i + 1 < pieces.length) {
      next = fetchAudio(pieces[i + 1]);
      // Awaited on the next turn of the loop; stopped before then, its failure is nobody's.
      next.catch(() => {});
    }
    if (signal.aborted) return;
    await playAudio(audio, signal);
  }
}

/**
 * The one element hob's voice plays through. Phones (iOS Safari above all)
 * let a page play sound later only from an element it first played in a
 * tap, so the taps that may lead to speech — the microphone, Voice mode, a
 * reply's play button, sending in voice mode — play a moment of silence on it first.
 */
const player = new Audio();
let playerUnlocked = false;

function unlockAudio() {
  if (playerUnlocked) return;
  playerUnlocked = true;
  const url = URL.createObjectURL(silentWav());
  player.dataset.silence = "";
  player.src = url;
  player.play().catch(() => playerUnlocked = false).finally(() => {
    delete player.dataset.silence;
    URL.revokeObjectURL(url);
  });
}

/** A WAV file of 10 ms of silence (8 kHz, 8-bit mono), made here: the page fetches nothing for it. */
function silentWav() {
  const samples = 80;
  const bytes = new Uint8Array(44 + samples).fill(128);
  const view = new DataView(bytes.buffer);
  const ascii = (at, text) => [...text].forEach((c, i) => bytes[at + i] = c.charCodeAt(0));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples, true);
  ascii(8, "WAVEfmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 8000, true);
  view.setUint32(28, 8000, true);
  view.setUint16(32, 1, true);
  view.setUint16(34, 8, true);
  ascii(36, "data");
  view.setUint32(40, samples, true);
  return new Blob([bytes], { type: "audio/wav" });
}

for (const tap of [els.mic, els.voiceMode]) tap.addEventListener("click", unlockAudio);

/** Plays audio bytes to the end, or until `signal` stops it. */
function playAudio(blob, signal) {
  const url = URL.createObjectURL(blob);
  const audio = player;
  audio.src = url;
  return new Promise((resolve, reject) => {
    const listening = new AbortController();
    let settled = false;
    const end = (error) => {
      if (settled) return;
      settled = true;
      listening.abort();
      URL.revokeObjectURL(url);
      signal.removeEventListener("abort", stop);
      if (error) reject(error);
      else resolve();
    };
    const stop = () => {
      audio.pause();
      end();
    };
    signal.addEventListener("abort", stop, { once: true });
    audio.addEventListener("ended", () => end(), { signal: listening.signal });
    audio.addEventListener("error", () => {
      end(new Error(audio.error?.message || "the browser could not play hob's audio"));
    }, { signal: listening.signal });
    audio.play().catch(end);
  });
}

/** The browser's own voice (speechSynthesis), a sentence or a few at a time. */
function speakInBrowser(text, signal) {
  const synth = globalThis.speechSynthesis;
  if (!synth) {
    throw new Error(
      "this browser has no voice, and hob has none set up (speech.speak in hob.yaml)",
    );
  }
  return new Promise((resolve, reject) => {
    const pieces = speechPieces(text, BROWSER_PIECE_CHARS);
    let left = pieces.length;
    for (const piece of pieces) {
      const utterance = new SpeechSynthesisUtterance(piece);
      utterance.addEventListener("end", () => --left === 0 && resolve());
      utterance.addEventListener("error", (event) => {
        if (event.error === "interrupted" || event.error === "canceled") return resolve();
        synth.cancel();
        reject(new Error(`the browser's voice failed (${event.error})`));
      });
      synth.speak(utterance);
    }
    signal.addEventListener("abort", () => {
      synth.cancel();
      resolve();
    }, { once: true });
  });
}

/** `text` cut at sentence ends into pieces of at most `max` characters (a longer sentence at spaces). */
function speechPieces(text, max) {
  const pieces = [];
  let piece = "";
  for (const sentence of text.split(/(?<=[.!?])\s+/)) {
    let rest = sentence;
    while (rest) {
      const space = rest.length > max ? rest.lastIndexOf(" ", max) : rest.length;
      const part = rest.slice(0, space > 0 ? space : max);
      rest = rest.slice(part.length).trimStart();
      if (piece && piece.length + 1 + part.length > max) {
        pieces.push(piece);
        piece = "";
      }
      piece = piece ? `${piece} ${part}` : part;
    }
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/**
 * What a rendered reply says aloud: its words, not its Markdown. Each block
 * ends a sentence; a code block is only mentioned; a link is its text, a bare
 * address its site.
 */
function speechText(root) {
  const lines = [""];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) lines[lines.length - 1] += node.textContent;
    if (node.nodeType !== Node.ELEMENT_NODE || node.tagName === "BUTTON") return;
    if (node.tagName === "PRE") return lines.push("(code on screen)", "");
    if (node.tagName === "IMG") lines[lines.length - 1] += node.alt;
    if (node.tagName === "BR" || node.tagName === "HR") lines.push("");
    const block = SPOKEN_BLOCKS.has(node.tagName);
    if (block) lines.push("");
    for (const child of node.childNodes) walk(child);
    if (block) lines.push("");
  };
  walk(root);
  return lines
    .map((line) => line.replace(/\bhttps?:\/\/[^\s<>()]+/g, siteOf).replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .map((line) => /[.!?:;,]$/.test(line) ? line : `${line}.`)
    .join(" ");
}

function siteOf(address) {
  try {
    return new URL(address).hostname.replace(/^www\./, "");
  } catch {
    return "a link";
  }
}

// ---------------------------------------------------------------- Conversations

async function openConversation(id) {
  state.controller?.abort();
  stopSpeaking();
  state.conversationId = id;
  markCurrent();
  try {
    const [conversation, { messages }] = await Promise.all([
      api(`/api/conversations/${encodeURIComponent(id)}`),
      api(`/api/conversations/${encodeURIComponent(id)}/messages`),
    ]);
    els.title.textContent = conversation.title || "Untitled";
    showModel(conversation.model);
    renderHistory(messages);
  } catch (error) {
    clearMessages();
    addNotice(`Could not open the conversation: ${error.message}`);
  }
}

function newChat() {
  state.controller?.abort();
  stopSpeaking();
  state.conversationId = null;
  els.title.textContent = "New chat";
  showModel("");
  cards.clear();
  showWelcome();
  markCurrent();
}

function markCurrent() {
  for (const li of document.querySelectorAll("#conversation-list li")) {
    const current = li.dataset.id === state.conversationId;
    li.classList.toggle("current", current);
    const link = li.querySelector("a");
    if (current) link?.setAttribute("aria-current", "page");
    else link?.removeAttribute("aria-current");
  }
}

/**
 * Conversations deleted from this page. A list fetched before a delete (a
 * search typed just before) may arrive after it; it must not bring one back.
 */
const deletedConversations = new Set();

document.body.addEventListener("htmx:afterSwap", (event) => {
  if (event.target.id !== "conversation-list") return;
  for (const li of event.target.querySelectorAll("li[data-id]")) {
    if (deletedConversations.has(li.dataset.id)) li.remove();
  }
  markCurrent();
});

document.body.addEventListener("hob:conversation-deleted", (event) => {
  const id = event.detail?.id;
  if (id) deletedConversations.add(id);
  if (id === state.conversationId) navigate("/");
});

els.rename.addEventListener("click", () => {
  if (!state.conversationId) return;
  const input = el("input");
  input.type = "text";
  input.value = els.title.textContent;
  input.setAttribute("aria-label", "Conversation title");
  els.title.replaceChildren(input);
  input.focus();
  input.select();
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    const title = input.value.trim();
    if (save && title) {
      try {
        const updated = await api(`/api/conversations/${state.conversationId}`, {
          method: "PATCH",
          json: { title },
        });
        els.title.textContent = updated.title;
        htmx.trigger(document.body, "hob:conversations");
        return;
      } catch (error) {
        addNotice(`Could not rename: ${error.message}`);
      }
    }
    els.title.textContent = input.defaultValue;
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") finish(true);
    if (event.key === "Escape") finish(false);
  });
  input.addEventListener("blur", () => finish(true));
});

// ---------------------------------------------------------------- Views and navigation

function route() {
  const path = location.pathname;
  const panel = PANELS.find((name) => path === `/${name}`);
  for (const link of document.querySelectorAll(".sections a")) {
    const view = link.dataset.view;
    const current = panel ? view === panel : view === "chat";
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (panel) {
    els.chatView.hidden = true;
    els.panel.hidden = false;
    htmx.ajax("GET", `/ui/panel/${panel}`, { target: "#panel", swap: "innerHTML" });
    return;
  }
  els.panel.hidden = true;
  els.chatView.hidden = false;
  const match = /^\/c\/([^/]+)$/.exec(path);
  if (match) openConversation(decodeURIComponent(match[1]));
  else newChat();
  els.input.focus();
}

function navigate(path) {
  if (location.pathname !== path) history.pushState({}, "", path);
  showSidebar(false);
  route();
}

/** On a narrow screen the sidebar folds behind Menu; it opens on demand and closes on the way out. */
function showSidebar(open) {
  $(".sidebar").classList.toggle("open", open);
  $("#sidebar-toggle").setAttribute("aria-expanded", String(open));
}

$("#sidebar-toggle").addEventListener("click", () => {
  showSidebar(!$(".sidebar").classList.contains("open"));
});

document.addEventListener("click", (event) => {
  if (
    event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey
  ) return;
  const link = event.target.closest("a[data-view], a[data-conversation], a[data-nav]");
  if (!link) return;
  event.preventDefault();
  navigate(new URL(link.href).pathname);
});

$("#new-chat").addEventListener("click", () => navigate("/"));
addEventListener("popstate", route);

// htmx loads after this module may run; wait for it before the first route.
function start() {
  loadModels();
  loadSpeech();
  route();
}
if (globalThis.htmx) start();
else addEventListener("load", start, { once: true });
