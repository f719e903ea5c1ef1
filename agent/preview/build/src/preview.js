// The local preview page: ask the agent a question with a catalog attached, exactly as Gemini Enterprise
// would (A2A message/stream, the CSV as an inline file part, the A2UI v0.8 extension declared), and show
// the answer as a person would see it: the Markdown text, the A2UI surface drawn by Google's @a2ui/lit
// renderer, and the evidence footer as its own block.
//
// Everything comes from the agent itself (connect-src 'self'): the card for the example questions, the
// RPC endpoint for answers. Nothing is inserted as HTML except markdown-it's output with html disabled,
// which escapes any HTML in the text.
import "@a2ui/lit/ui";
import { Data } from "@a2ui/lit/v0_8";
import { Context } from "@a2ui/lit/ui";
import { ContextProvider } from "@lit/context";
import MarkdownIt from "markdown-it";
import { theme } from "./theme.js";

const A2UI_EXTENSION = "https://a2ui.org/a2a-extension/a2ui/v0.8";
const A2UI_MIME = "application/json+a2ui";
const TERMINAL = new Set(["completed", "failed", "canceled", "rejected", "input-required", "auth-required"]);
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

const $ = (id) => document.getElementById(id);
const state = {
  rpcUrl: "/",
  contextId: null,
  file: null, // {name, mimeType, bytes(base64)} waiting for the next question
  running: null, // {taskId, controller, turn}
  rpcId: 0,
};
const processor = Data.createSignalA2uiMessageProcessor();

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

function markdown(text) {
  const box = el("div", { class: "markdown" });
  box.innerHTML = md.render(text); // html: false — markdown-it escapes every tag in the text
  return box;
}

/** The answer text ends with its evidence footer after a rule: "---\nEvidence\n…". */
function splitEvidence(text) {
  const match = /\n---\n(Evidence\b[\s\S]*)$/.exec(text);
  if (!match) return [text, null];
  return [text.slice(0, match.index), match[1]];
}

// --- the card: endpoint and example questions -------------------------------------------------------

async function loadCard() {
  const response = await fetch("/.well-known/agent-card.json", { headers: { Accept: "application/json" } });
  const card = await response.json();
  // Same origin as the page whatever host name the browser used: only the card's path is taken.
  state.rpcUrl = new URL(card.url).pathname;
  $("agent-name").textContent = card.name;
  const box = $("examples");
  for (const skill of card.skills ?? []) {
    for (const example of skill.examples ?? []) {
      box.append(el("button", { type: "button", class: "example", title: skill.name, textContent: example,
        onclick: () => ask(example) }));
    }
  }
  document.body.dataset.ready = "true";
}

// --- the catalog file: sent as an A2A file part, inline bytes, like Gemini Enterprise ---------------

function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] ?? "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

async function chooseFile(file) {
  if (!file) return;
  const bytes = await readFile(file);
  const csv = /\.csv$/i.test(file.name);
  state.file = { name: file.name, mimeType: csv ? "text/csv" : file.type || "application/octet-stream", bytes };
  $("file-name").textContent = `${file.name} (${file.size.toLocaleString("en-US")} bytes) — sent with the next question`;
  $("drop").dataset.loaded = "true";
}

// --- one turn -----------------------------------------------------------------------------------------

function newTurn(question, fileName) {
  const user = el("div", { class: "user" }, el("p", { textContent: question }));
  if (fileName) user.append(el("p", { class: "attachment", textContent: `Attached: ${fileName}` }));
  const status = el("p", { class: "status", textContent: "Sending…" });
  const artifacts = el("div", { class: "artifacts" });
  const agent = el("div", { class: "agent" }, status, artifacts);
  const turn = el("article", { class: "turn", "data-state": "sending" }, user, agent);
  $("conversation").append(turn);
  turn.scrollIntoView({ block: "end" });
  return { turn, status, artifacts, byId: new Map() };
}

function setState(view, taskState, message) {
  view.turn.dataset.state = taskState;
  const text = (message?.parts ?? []).filter((p) => p.kind === "text").map((p) => p.text).join(" ");
  view.status.dataset.state = taskState;
  view.status.textContent = text ? `${taskState}: ${text}` : taskState;
}

function artifactView(view, artifact) {
  let entry = view.byId.get(artifact.artifactId);
  if (!entry) {
    const node = el("section", { class: "artifact", "data-artifact-id": artifact.artifactId,
      "data-name": artifact.name ?? "" });
    view.artifacts.append(node);
    entry = { node, text: el("div", { class: "text" }), a2ui: el("div", { class: "a2ui" }),
      evidence: el("section", { class: "evidence" }) };
    node.append(entry.a2ui, entry.text, entry.evidence);
    view.byId.set(artifact.artifactId, entry);
  }
  return entry;
}

function showParts(entry, parts) {
  const messages = [];
  for (const part of parts) {
    if (part.kind === "text") {
      const [body, evidence] = splitEvidence(part.text);
      const details = el("details", { class: "text-part" }, el("summary", { textContent: "Text answer (Markdown)" }),
        markdown(body));
      details.open = true;
      entry.text.append(details);
      if (evidence) entry.evidence.append(markdown(evidence));
    } else if (part.kind === "data" && part.metadata?.mimeType === A2UI_MIME) {
      messages.push(part.data);
    }
  }
  if (messages.length) showSurfaces(entry, messages);
}

function showSurfaces(entry, messages) {
  processor.processMessages(messages);
  const ids = new Set(messages.map((m) => Object.values(m)[0]?.surfaceId).filter(Boolean));
  const surfaces = processor.getSurfaces();
  for (const id of ids) {
    if (entry.a2ui.querySelector(`a2ui-surface[data-surface-id="${CSS.escape(id)}"]`)) continue;
    const surface = document.createElement("a2ui-surface");
    surface.dataset.surfaceId = id;
    surface.surfaceId = id;
    surface.surface = surfaces.get(id) ?? null;
    surface.processor = processor;
    entry.a2ui.append(surface);
  }
  // A text part shown next to a drawn surface is what a text-only client sees: folded away.
  for (const details of entry.text.querySelectorAll("details")) details.open = false;
}

function handleEvent(view, result) {
  if (result.kind === "task") {
    state.running.taskId = result.id;
    state.contextId = result.contextId ?? state.contextId;
    view.turn.dataset.taskId = result.id;
    view.turn.dataset.contextId = state.contextId ?? "";
    setState(view, result.status?.state ?? "submitted", result.status?.message);
    for (const artifact of result.artifacts ?? []) showParts(artifactView(view, artifact), artifact.parts ?? []);
  } else if (result.kind === "status-update") {
    state.contextId = result.contextId ?? state.contextId;
    setState(view, result.status.state, result.status.message);
  } else if (result.kind === "artifact-update") {
    showParts(artifactView(view, result.artifact), result.artifact.parts ?? []);
    if (!performance.getEntriesByName("cga-first-artifact").length) performance.mark("cga-first-artifact");
    view.turn.dataset.artifacts = String(view.byId.size);
  } else if (result.kind === "message") {
    const entry = artifactView(view, { artifactId: result.messageId, name: "message" });
    showParts(entry, result.parts ?? []);
    setState(view, "completed", null);
  }
}

/** Server-Sent Events from a fetch body: frames end at a blank line, `data:` lines join with "\n". */
async function* sseEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
      const data = frame.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
      if (data.length) yield JSON.parse(data.join("\n"));
    }
  }
}

function rpc(method, params) {
  return { jsonrpc: "2.0", id: ++state.rpcId, method, params };
}

// `userAction`: a pressed A2UI button's action (see `pressed`), sent as a DataPart instead of the text;
// the turn shows the button's question, which is what the agent answers.
async function ask(question, userAction = null) {
  question = question.trim();
  if (!question || state.running) return;
  const parts = userAction ? [{ kind: "data", data: { userAction } }] : [{ kind: "text", text: question }];
  const file = state.file;
  if (file) parts.push({ kind: "file", file: { bytes: file.bytes, mimeType: file.mimeType, name: file.name } });
  const message = { kind: "message", role: "user", messageId: crypto.randomUUID(), parts };
  if (state.contextId) message.contextId = state.contextId;
  state.file = null;
  $("file-name").textContent = file ? "" : $("file-name").textContent;
  delete $("drop").dataset.loaded;
  $("file").value = "";
  $("question").value = "";

  performance.clearMarks();
  performance.mark("cga-send"); // bench/preview_first_artifact.py: Send → first rendered artifact
  const view = newTurn(question, file?.name);
  const controller = new AbortController();
  state.running = { taskId: null, controller, view };
  document.body.dataset.running = "true";
  let last = "sending";
  try {
    const response = await fetch(state.rpcUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream", "X-A2A-Extensions": A2UI_EXTENSION },
      body: JSON.stringify(rpc("message/stream", { message })),
      signal: controller.signal,
    });
    const type = response.headers.get("Content-Type") ?? "";
    const frames = type.startsWith("text/event-stream") ? sseEvents(response.body) : oneFrame(response);
    for await (const frame of frames) {
      if (frame.error) {
        showError(view, frame.error.message ?? "The agent answered with an error.");
        last = "failed";
        break;
      }
      handleEvent(view, frame.result);
      last = view.turn.dataset.state;
    }
    if (!TERMINAL.has(last)) showError(view, "The stream ended before a final state.");
  } catch (error) {
    showError(view, `The request did not complete: ${error.message}`);
  } finally {
    // The page takes the next question only now, after the stream has ended: `data-done` says so.
    state.running = null;
    delete document.body.dataset.running;
    view.turn.dataset.done = "true";
  }
}

async function* oneFrame(response) {
  yield await response.json();
}

function showError(view, text) {
  view.turn.dataset.state = "failed";
  view.status.dataset.state = "failed";
  view.status.textContent = `failed: ${text}`;
}

async function cancel() {
  const running = state.running;
  if (!running?.taskId) return;
  const response = await fetch(state.rpcUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(rpc("tasks/cancel", { id: running.taskId })),
  });
  const answer = await response.json();
  if (answer.result?.status) setState(running.view, answer.result.status.state, answer.result.status.message);
  else if (answer.error) running.view.status.textContent += ` (cancel: ${answer.error.message})`;
}

function newConversation() {
  if (state.running) return;
  state.contextId = null;
  $("conversation").replaceChildren();
}

// A button on a rendered surface was pressed: the renderer dispatches `a2uiaction` (bubbling, composed)
// with the component's action. It goes back as an A2UI v0.8 `userAction`, its context resolved to an
// object (our surfaces hold literals only), in this conversation's context — as Gemini Enterprise does.
function pressed(event) {
  const detail = event.detail;
  if (detail?.eventType !== "a2ui.action" || !detail.action?.name) return;
  const surface = event.composedPath().find((node) => node instanceof HTMLElement && node.tagName === "A2UI-SURFACE");
  const context = {};
  for (const item of detail.action.context ?? []) {
    const value = item?.value ?? {};
    context[item.key] = value.literalString ?? value.literalNumber ?? value.literalBoolean ?? null;
  }
  const userAction = {
    name: detail.action.name,
    surfaceId: surface?.dataset.surfaceId ?? "",
    sourceComponentId: detail.sourceComponentId ?? "",
    timestamp: new Date().toISOString(),
    context,
  };
  ask(typeof context.question === "string" ? context.question : detail.action.name, userAction);
}

// --- wiring -------------------------------------------------------------------------------------------

function start() {
  // The renderer's Text components ask their ancestors for a Markdown renderer and a theme (Lit context).
  const root = $("conversation");
  new ContextProvider(root, { context: Context.markdown, initialValue: async (text) => md.render(text) });
  new ContextProvider(root, { context: Context.theme, initialValue: theme });

  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    ask($("question").value);
  });
  root.addEventListener("a2uiaction", pressed);
  $("cancel").addEventListener("click", () => cancel());
  $("new").addEventListener("click", () => newConversation());
  $("file").addEventListener("change", (event) => chooseFile(event.target.files[0]));
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.dataset.over = "true"; });
  drop.addEventListener("dragleave", () => delete drop.dataset.over);
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    delete drop.dataset.over;
    chooseFile(event.dataTransfer.files[0]);
  });
  loadCard().catch((error) => { $("examples").textContent = `The agent card could not be read: ${error.message}`; });
}

start();
