// Builds the extension with esbuild.
//
//   node scripts/build.mjs           dist/extension.js: one CommonJS bundle with
//                                    vscode-languageclient inside, `vscode` external
//   node scripts/build.mjs --watch   the same, rebuilt on every change
//   node scripts/build.mjs --tests   out/: src/ and test/ transpiled file by file
//                                    (no bundle), for `node --test` and capture.mjs

import * as esbuild from "esbuild";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));

/** The .ts files under a directory of the package, sorted, recursively. */
function tsFiles(dir) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = join(dir, entry.name);
    if (entry.isDirectory()) {
      out.push(...tsFiles(rel));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
      out.push(rel);
    }
  }
  return out.sort();
}

if (args.has("--tests")) {
  rmSync(join(root, "out"), { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [...tsFiles("src"), ...tsFiles("test")],
    outdir: "out",
    outbase: ".",
    bundle: false,
    platform: "node",
    format: "cjs",
    target: "node18",
    sourcemap: "inline",
    logLevel: "warning",
  });
} else {
  /** @type {esbuild.BuildOptions} */
  const options = {
    absWorkingDir: root,
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    bundle: true,
    external: ["vscode"],
    platform: "node",
    format: "cjs",
    // VS Code 1.85 runs extensions on Electron 25's Node 18.
    target: "node18",
    minify: !args.has("--watch"),
    keepNames: true,
    sourcemap: args.has("--watch") ? "linked" : false,
    logLevel: "info",
  };
  if (args.has("--watch")) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  } else {
    rmSync(join(root, "dist"), { recursive: true, force: true });
    const result = await esbuild.build({ ...options, metafile: true });
    writeNotices(result.metafile);
  }
}

/**
 * dist/THIRD_PARTY_NOTICES.txt: the license of every package the bundle
 * contains (the bundle is a copy of them, and their licenses ask that the
 * notice travel with it), found from esbuild's list of inputs.
 */
function writeNotices(metafile) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
    if (m) {
      packages.set(m[2], join(root, m[1]));
    }
  }
  const sections = [];
  for (const name of [...packages.keys()].sort()) {
    const dir = packages.get(name);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
    if (file === undefined || !existsSync(join(dir, file))) {
      throw new Error(`${name} is bundled but has no license file`);
    }
    sections.push(`${name} ${pkg.version} (${pkg.license})\n\n${readFileSync(join(dir, file), "utf8").trim()}\n`);
  }
  const header = "The ctxd extension's dist/extension.js bundles the following packages.\n";
  writeFileSync(join(root, "dist", "THIRD_PARTY_NOTICES.txt"), [header, ...sections].join("\n" + "-".repeat(72) + "\n\n"));
}
