// Bundle the preview page's script into ONE committed file, agent/preview/static/preview.js.
//
// `npm ci && node build.mjs` here (node_modules is git-ignored). The output is deterministic for a given
// package-lock.json: tests/test_preview_bundle.py rebuilds it and compares byte for byte, so the committed
// bundle is always what this script and this lock produce. Minified, no source map, no network at run time.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const outfile = process.argv[2] ?? path.join(here, "..", "static", "preview.js");

await build({
  entryPoints: [path.join(here, "src", "preview.js")],
  outfile,
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  legalComments: "eof",
  // The Lit renderer falls back to a dynamic import of this optional package when no Markdown renderer
  // is provided; the page always provides one, so it is never loaded.
  external: ["@a2ui/markdown-it"],
  logLevel: "warning",
});
