// Test helper: feed our A2UI v0.8 messages to the official renderer core and report what it built.
//
// stdin:  {"surfaces": [[message, ...], ...]}   (all surfaces go through ONE processor, as in a chat)
// stdout: {"ok": true, "surfaces": {"<surfaceId>": {"root": id, "nodes": n, "texts": {id: {hint, html}}, "buttons": {id: action}}}}
//         or {"ok": false, "error": "..."} with exit code 1.
//
// `nodes` counts every node of the component tree A2uiMessageProcessor built from the root. `html` is
// each Text rendered the way the A2UI web renderers do it: literal prefixed by usage hint ("## " for
// h2, "*…*" for caption), then markdown-it with its default options.
import { A2uiMessageProcessor } from "@a2ui/web_core/v0_8";
import MarkdownIt from "markdown-it";

const md = new MarkdownIt();
const PREFIX = { h1: "# ", h2: "## ", h3: "### ", h4: "#### ", h5: "##### " };

function isNode(value) {
  return value !== null && typeof value === "object" && "id" in value && "type" in value && "properties" in value;
}

function markdownFor(text, hint) {
  if (hint === "caption") return `*${text}*`;
  return (PREFIX[hint] ?? "") + text;
}

function walk(node, out) {
  out.nodes += 1;
  if (node.type === "Text") {
    const text = node.properties.text;
    const literal = text && typeof text === "object" ? text.literalString : undefined;
    if (typeof literal !== "string") throw new Error(`Text ${node.id} has no literal string after processing`);
    const hint = node.properties.usageHint ?? "body";
    out.texts[node.id] = { hint, weight: node.weight, html: md.render(markdownFor(literal, hint)) };
  }
  if (node.type === "Button") out.buttons[node.id] = node.properties.action;
  for (const value of Object.values(node.properties)) {
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (item === null) throw new Error(`node ${node.id} has a child that did not resolve`);
      if (isNode(item)) walk(item, out);
    }
  }
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

try {
  const input = JSON.parse(await readStdin());
  const processor = new A2uiMessageProcessor();
  for (const messages of input.surfaces) processor.processMessages(messages);
  const result = {};
  for (const [surfaceId, surface] of processor.getSurfaces()) {
    if (!surface.componentTree) throw new Error(`surface ${surfaceId} has no component tree`);
    const out = { root: surface.rootComponentId, nodes: 0, texts: {}, buttons: {} };
    walk(surface.componentTree, out);
    result[surfaceId] = out;
  }
  process.stdout.write(JSON.stringify({ ok: true, surfaces: result }));
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false, error: String(err && err.stack ? err.stack : err) }));
  process.exitCode = 1;
}
