// The model clients of Generate Change: the SSE parser (chunks split
// anywhere), the OpenAI and Anthropic stream readers, both HTTP clients
// against tools/fakemodel (streaming, keys, errors, cancellation), and the
// vscode.lm client against a stand-in of the API.

import assert from "node:assert/strict";
import * as net from "node:net";
import { after, before, describe, it } from "node:test";
import {
  AnthropicChatModel,
  AnthropicStream,
  LmChatModel,
  ModelError,
  OpenAIChatModel,
  OpenAIStream,
  SseParser,
  joinUrl,
  displayUrl,
  selectLmModel,
  type ChatMessage,
  type LmChat,
  type SseEvent,
} from "../src/model";
import { cancelSource, startFakeModel, type FakeModel } from "./fakeModel";

/** Feeds chunks to a new parser and ends it. */
function parse(chunks: string[]): SseEvent[] {
  const p = new SseParser();
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

/** Every way of cutting a text into two or three pieces, and one character at a time. */
function splits(text: string): string[][] {
  const out: string[][] = [[text], [...text]];
  for (let i = 1; i < text.length; i++) {
    out.push([text.slice(0, i), text.slice(i)]);
    for (let j = i + 1; j < text.length; j += 3) {
      out.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
    }
  }
  return out;
}

const messages: ChatMessage[] = [
  { role: "system", content: "You write unified diffs." },
  { role: "user", content: "Change List. Write the unified diff." },
];

describe("SseParser", () => {
  const stream =
    ": a comment\r\n" +
    "event: content_block_delta\r\n" +
    'data: {"type":"content_block_delta","delta":{"type":"text_delta","text":"a\\nb"}}\r\n' +
    "\r\n" +
    "data: first line\n" +
    "data:second line\n" +
    "id: 7\n" +
    "retry: 100\n" +
    "\n" +
    "data: cr only\r\r" +
    "data: [DONE]\n\n";
  const want: SseEvent[] = [
    { event: "content_block_delta", data: '{"type":"content_block_delta","delta":{"type":"text_delta","text":"a\\nb"}}' },
    { event: "message", data: "first line\nsecond line" },
    { event: "message", data: "cr only" },
    { event: "message", data: "[DONE]" },
  ];

  it("gives the same events however the stream is cut, also between \\r and \\n", () => {
    for (const chunks of splits(stream)) {
      assert.deepEqual(parse(chunks), want, JSON.stringify(chunks));
    }
  });

  it("dispatches only at a blank line; the end flushes an event cut short", () => {
    const p = new SseParser();
    assert.deepEqual(p.push("data: a\n"), []);
    assert.deepEqual(p.push("data: b"), []);
    assert.deepEqual(p.end(), [{ event: "message", data: "a\nb" }]);
  });

  it("skips a BOM, fields without a colon and events without data", () => {
    assert.deepEqual(parse(["\ufeffdata: x\n\n", "event: ping\n\n", "data\n\n"]), [
      { event: "message", data: "x" },
      { event: "message", data: "" },
    ]);
  });
});

describe("the stream readers", () => {
  it("OpenAI: delta content, then [DONE]; nothing after it", () => {
    const s = new OpenAIStream();
    const ev = (data: string): SseEvent => ({ event: "message", data });
    assert.equal(s.text(ev('{"choices":[{"index":0,"delta":{"role":"assistant"}}]}')), "");
    assert.equal(s.text(ev('{"choices":[{"index":0,"delta":{"content":"--- a/x"}}]}')), "--- a/x");
    assert.equal(s.text(ev('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}')), "");
    assert.equal(s.finished, false);
    assert.equal(s.text(ev("[DONE]")), "");
    assert.equal(s.finished, true);
    assert.equal(s.text(ev('{"choices":[{"delta":{"content":"late"}}]}')), "");
  });

  it("OpenAI: an error in the stream is a ModelError", () => {
    const s = new OpenAIStream();
    assert.throws(
      () => s.text({ event: "message", data: '{"error":{"message":"context length exceeded","type":"invalid_request_error"}}' }),
      (err: unknown) => err instanceof ModelError && err.kind === "stream" && /context length exceeded \(invalid_request_error\)/.test(err.message),
    );
    assert.throws(() => s.text({ event: "message", data: "not json" }), (err: unknown) => err instanceof ModelError && /not JSON/.test(err.message));
  });

  it("Anthropic: text of content_block_delta only; message_stop ends", () => {
    const s = new AnthropicStream();
    const events: [string, unknown][] = [
      ["message_start", { type: "message_start", message: { id: "m", content: [] } }],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["ping", { type: "ping" }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: ", world" } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "{}" } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" } }],
    ];
    const text = events.map(([event, data]) => s.text({ event, data: JSON.stringify(data) })).join("");
    assert.equal(text, "Hello, world");
    assert.equal(s.finished, false);
    s.text({ event: "message_stop", data: '{"type":"message_stop"}' });
    assert.equal(s.finished, true);
  });

  it("Anthropic: an error event is a ModelError with its message", () => {
    const s = new AnthropicStream();
    assert.throws(
      () => s.text({ event: "error", data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' }),
      (err: unknown) => err instanceof ModelError && err.kind === "stream" && /Overloaded \(overloaded_error\)/.test(err.message),
    );
  });

  it("URLs: joined with one slash, shown without credentials or query", () => {
    assert.equal(joinUrl("http://127.0.0.1:11434/v1/", "/chat/completions"), "http://127.0.0.1:11434/v1/chat/completions");
    assert.equal(displayUrl("https://user:pw@example.com/v1/?key=x"), "https://example.com/v1");
  });
});

describe("the HTTP clients against the fake model server", { timeout: 60_000 }, () => {
  let model: FakeModel;
  const long = "--- a/internal/store/store.go\n+++ b/internal/store/store.go\n@@ -1 +1 @@\n-// 日本語 😀\n+// changed 😀\n";

  before(async () => {
    model = await startFakeModel({
      chunk: 5,
      key: "sk-test-key",
      answers: [long, "anthropic answer ✓", { status: 500, body: "scripted failure" }, { delay_ms: 200, text: "slow answer that will be cancelled" }, "after"],
    });
  });
  after(async () => {
    await model?.stop();
  });

  it("openai: streams choices[0].delta.content, with the key as a Bearer token", async () => {
    const client = new OpenAIChatModel({ baseUrl: `${model.url}/v1`, model: "fake-gpt", apiKey: "sk-test-key" });
    const pieces: string[] = [];
    const answer = await client.send(messages, undefined, (t) => pieces.push(t));
    assert.equal(answer, long);
    assert.ok(pieces.length > 5, "streamed in pieces");
    assert.equal(pieces.join(""), long);
    const req = (await model.requests())[0]!;
    assert.equal(req.path, "/v1/chat/completions");
    assert.equal(req.headers.authorization, "Bearer sk-test-key");
    assert.equal(req.body.stream, true);
    assert.equal(req.body.model, "fake-gpt");
    assert.deepEqual(req.body.messages, messages);
  });

  it("anthropic: system at the top level, max_tokens, x-api-key and anthropic-version", async () => {
    const client = new AnthropicChatModel({ baseUrl: model.url, model: "fake-claude", apiKey: "sk-test-key", maxOutputTokens: 1234 });
    const answer = await client.send(messages, undefined);
    assert.equal(answer, "anthropic answer ✓");
    const req = (await model.requests())[1]!;
    assert.equal(req.path, "/v1/messages");
    assert.equal(req.headers["x-api-key"], "sk-test-key");
    assert.equal(req.headers["anthropic-version"], "2023-06-01");
    assert.equal(req.headers.authorization, undefined);
    assert.equal(req.body.system, messages[0]!.content);
    assert.deepEqual(req.body.messages, [{ role: "user", content: messages[1]!.content }]);
    assert.equal(req.body.max_tokens, 1234);
    assert.equal(req.body.stream, true);
  });

  it("an HTTP failure is a ModelError with the status and the server's message", async () => {
    const client = new OpenAIChatModel({ baseUrl: model.url, model: "m", apiKey: "sk-test-key" });
    await assert.rejects(client.send(messages, undefined), (err: unknown) => {
      assert.ok(err instanceof ModelError);
      assert.equal(err.kind, "http");
      assert.equal(err.status, 500);
      assert.match(err.message, /answered 500 .*scripted failure/);
      return true;
    });
  });

  it("cancelling aborts the stream", async () => {
    const client = new OpenAIChatModel({ baseUrl: model.url, model: "m", apiKey: "sk-test-key" });
    const source = cancelSource();
    let received = "";
    const started = Date.now();
    const pending = client.send(messages, source.token, (t) => {
      received += t;
      source.cancel();
    });
    await assert.rejects(pending, (err: unknown) => err instanceof ModelError && err.kind === "cancelled");
    assert.ok(received.length > 0 && received.length < "slow answer that will be cancelled".length, `stopped early: ${JSON.stringify(received)}`);
    assert.ok(Date.now() - started < 3000);
  });

  it("a wrong or missing key is an auth error, and the key never appears in it", async () => {
    const wrong = new OpenAIChatModel({ baseUrl: model.url, model: "m", apiKey: "sk-wrong-key" });
    await assert.rejects(wrong.send(messages, undefined), (err: unknown) => {
      assert.ok(err instanceof ModelError);
      assert.equal(err.kind, "auth");
      assert.equal(err.status, 401);
      assert.doesNotMatch(err.message, /sk-wrong-key/);
      return true;
    });
    const none = new AnthropicChatModel({ baseUrl: model.url + "/v1", model: "m" });
    await assert.rejects(none.send(messages, undefined), (err: unknown) => err instanceof ModelError && err.kind === "auth");
    const reqs = await model.requests();
    assert.equal(reqs[reqs.length - 1]!.path, "/v1/messages", "a base URL ending in /v1 is not doubled");
    assert.equal(reqs[reqs.length - 1]!.headers["x-api-key"], undefined, "no key, no header");
  });

  it("an unreachable endpoint is a network error", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const client = new OpenAIChatModel({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m" });
    await assert.rejects(client.send(messages, undefined), (err: unknown) => err instanceof ModelError && err.kind === "network" && /could not reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions/.test(err.message));
  });
});

describe("vscode.lm", () => {
  const factory = {
    User: (content: string) => ({ role: "user", content }),
    Assistant: (content: string) => ({ role: "assistant", content }),
  };
  function lmModel(over: Partial<LmChat> = {}, sent: unknown[][] = []): LmChat {
    return {
      id: "copilot-gpt-4o",
      name: "GPT-4o",
      vendor: "copilot",
      family: "gpt-4o",
      version: "1",
      maxInputTokens: 64000,
      async sendRequest(msgs: unknown[]) {
        sent.push(msgs);
        return {
          text: (async function* () {
            yield "--- a/x\n";
            yield "+++ b/x\n";
          })(),
        };
      },
      ...over,
    };
  }

  it("without the API (VS Code before 1.90): a clear error naming the other providers", async () => {
    await assert.rejects(selectLmModel({ version: "1.85.0" }), (err: unknown) => {
      assert.ok(err instanceof ModelError);
      assert.equal(err.kind, "unavailable");
      assert.match(err.message, /VS Code \(1\.85\.0\) has no Language Model API .*ctxd\.change\.provider to openai or anthropic/);
      return true;
    });
  });

  it("no matching model: says which vendor and family were asked for", async () => {
    let asked: unknown;
    const host = { lm: { selectChatModels: async (s?: unknown) => ((asked = s), []) }, LanguageModelChatMessage: factory };
    await assert.rejects(selectLmModel(host, "copilot", "o1"), (err: unknown) => err instanceof ModelError && /vendor "copilot" and family "o1"/.test(err.message));
    assert.deepEqual(asked, { vendor: "copilot", family: "o1" });
  });

  it("the first model; its maxInputTokens; the system message sent as a user message", async () => {
    const sent: unknown[][] = [];
    const host = { lm: { selectChatModels: async () => [lmModel({}, sent), lmModel({ id: "other" })] }, LanguageModelChatMessage: factory };
    const model = await selectLmModel(host, "", "");
    assert.ok(model instanceof LmChatModel);
    assert.equal(model.provider, "copilot");
    assert.equal(model.model, "gpt-4o");
    assert.equal(model.maxInputTokens, 64000);
    const pieces: string[] = [];
    assert.equal(await model.send(messages, undefined, (t) => pieces.push(t)), "--- a/x\n+++ b/x\n");
    assert.deepEqual(pieces, ["--- a/x\n", "+++ b/x\n"]);
    assert.deepEqual(sent[0], [
      { role: "user", content: messages[0]!.content },
      { role: "user", content: messages[1]!.content },
    ]);
  });

  it("a LanguageModelError becomes a ModelError; a cancellation is reported as one", async () => {
    const denied = new LmChatModel(
      lmModel({
        sendRequest: async () => {
          throw Object.assign(new Error("the user did not allow the request"), { code: "NoPermissions" });
        },
      }),
      factory,
    );
    await assert.rejects(denied.send(messages, undefined), (err: unknown) => err instanceof ModelError && err.kind === "auth" && /NoPermissions/.test(err.message));
    const source = cancelSource();
    source.cancel();
    await assert.rejects(new LmChatModel(lmModel(), factory).send(messages, source.token), (err: unknown) => err instanceof ModelError && err.kind === "cancelled");
  });
});
