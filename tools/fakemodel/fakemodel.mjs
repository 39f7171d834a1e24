#!/usr/bin/env node
// A scripted fake model server for the editors' tests: it answers the
// OpenAI-compatible chat completions API (POST /v1/chat/completions, also
// /chat/completions) and the Anthropic Messages API (POST /v1/messages,
// also /messages), streaming (SSE) or not, on 127.0.0.1 only. The ctxd
// binary never talks to it: the editor extensions, which are the user's
// own model clients, do. Nothing here reaches the network.
//
// Usage: node fakemodel.mjs SCRIPT.json [PORT]
//
// SCRIPT.json is {"answers": ["...", "..."], "chunk": 7, "key": "k"}:
// the n-th request gets answers[n] (the last answer repeats once the list
// is used up); a streamed answer is sent in pieces of `chunk` characters
// (default 16). With "key", a request without that key (Authorization:
// Bearer <key> for OpenAI, x-api-key: <key> for Anthropic) gets 401.
// An answer may also be {"status": 500, "body": "..."} to script a failure,
// or {"delay_ms": N, "text": "..."} to answer slowly (cancellation tests).
//
// It prints "listening http://127.0.0.1:PORT" on its first stdout line.
// GET /__requests returns every request received so far as JSON
// ([{path, headers, body}]), so a test can check what the client sent
// (the prompt, the retry's last error, the key header) — and that nothing
// else was sent.
import * as fs from "node:fs";
import * as http from "node:http";

const [, , scriptPath, portArg] = process.argv;
if (!scriptPath) {
  process.stderr.write("usage: node fakemodel.mjs SCRIPT.json [PORT]\n");
  process.exit(2);
}
const script = JSON.parse(fs.readFileSync(scriptPath, "utf8"));
const answers = Array.isArray(script.answers) ? script.answers : [];
const chunk = Number.isInteger(script.chunk) && script.chunk > 0 ? script.chunk : 16;
const received = [];
let served = 0;

function nextAnswer() {
  if (answers.length === 0) return { text: "" };
  const a = answers[Math.min(served, answers.length - 1)];
  served++;
  return typeof a === "string" ? { text: a } : a;
}

function pieces(text) {
  const out = [];
  for (let i = 0; i < text.length; i += chunk) out.push(text.slice(i, i + chunk));
  return out.length > 0 ? out : [""];
}

function authorized(req, anthropic) {
  if (!script.key) return true;
  if (anthropic) return req.headers["x-api-key"] === script.key;
  return req.headers["authorization"] === `Bearer ${script.key}`;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function answerOpenAI(res, body, a) {
  const model = body.model || "fake";
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id: "chatcmpl-fake", object: "chat.completion", model,
      choices: [{ index: 0, message: { role: "assistant", content: a.text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const p of pieces(a.text)) {
    if (res.destroyed) return;
    res.write(`data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", model, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] })}\n\n`);
    if (a.delay_ms) await sleep(a.delay_ms);
  }
  res.write(`data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", model, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
  res.end("data: [DONE]\n\n");
}

async function answerAnthropic(res, body, a) {
  const model = body.model || "fake";
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id: "msg_fake", type: "message", role: "assistant", model,
      content: [{ type: "text", text: a.text }], stop_reason: "end_turn",
      usage: { input_tokens: 1, output_tokens: 1 },
    }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const ev = (name, data) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  ev("message_start", { type: "message_start", message: { id: "msg_fake", type: "message", role: "assistant", model, content: [], usage: { input_tokens: 1, output_tokens: 0 } } });
  ev("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  ev("ping", { type: "ping" });
  for (const p of pieces(a.text)) {
    if (res.destroyed) return;
    ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: p } });
    if (a.delay_ms) await sleep(a.delay_ms);
  }
  ev("content_block_stop", { type: "content_block_stop", index: 0 });
  ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } });
  ev("message_stop", { type: "message_stop" });
  res.end();
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/__requests") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(received));
    return;
  }
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (d) => (raw += d));
  req.on("end", async () => {
    const path = (req.url || "").split("?")[0];
    const anthropic = /\/messages$/.test(path);
    const openai = /\/chat\/completions$/.test(path);
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "invalid JSON" } }));
      return;
    }
    received.push({ path, headers: req.headers, body });
    if (req.method !== "POST" || (!anthropic && !openai)) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    if (!authorized(req, anthropic)) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { type: "authentication_error", message: "invalid api key" } }));
      return;
    }
    const a = nextAnswer();
    if (a.status) {
      res.writeHead(a.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: a.body || "scripted failure" } }));
      return;
    }
    await (anthropic ? answerAnthropic(res, body, a) : answerOpenAI(res, body, a));
  });
});

server.listen(Number(portArg || 0), "127.0.0.1", () => {
  const { port } = server.address();
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
