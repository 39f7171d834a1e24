// The protocol check before a server starts: what the extension reads from
// `ctxd version --json`, and whether it starts, refuses or warns.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { decideProtocol, parseVersionJson, ProtocolVersion, releaseMajor, ServerMajor, versionWord, type VersionReport } from "../src/protocol";

const expected = { protocol: 3, major: 2 };
const report = (version: string, protocol?: unknown): VersionReport => (protocol === undefined ? { version } : { version, protocol });

describe("parseVersionJson", () => {
  it("reads what ctxd version --json prints today", () => {
    const out = '{\n  "version": "v0.2.0",\n  "commit": "5a5e5dd",\n  "go_version": "go1.26.0",\n  "platform": "linux/amd64"\n}\n';
    assert.deepEqual(parseVersionJson(out), { version: "v0.2.0", commit: "5a5e5dd", platform: "linux/amd64" });
  });
  it("keeps protocol_version as printed, whatever its type", () => {
    assert.deepEqual(parseVersionJson('{"version":"1.0.0","protocol_version":4}'), { version: "1.0.0", protocol: 4 });
    assert.deepEqual(parseVersionJson('{"version":"1.0.0","protocol_version":"four"}'), { version: "1.0.0", protocol: "four" });
  });
  it("anything else is not a report", () => {
    for (const out of ["", "ctxd v0.2.0 (commit 5a5e5dd, go1.26.0, linux/amd64)\n", "[]", "null", '{"version":3}', '{"version":"  "}', '{"name":"x"}']) {
      assert.equal(parseVersionJson(out), undefined, out);
    }
  });
});

describe("versionWord and releaseMajor", () => {
  it("the version word of the plain line", () => {
    assert.equal(versionWord("ctxd v1.2.3 (commit 5a5e, go1.26, linux/amd64)"), "v1.2.3");
    assert.equal(versionWord("Python 3.12"), undefined);
  });
  it("releases give their major", () => {
    assert.equal(releaseMajor("v1.2.3"), 1);
    assert.equal(releaseMajor("0.4.0"), 0);
    assert.equal(releaseMajor("12.0.1-rc.1"), 12);
    assert.equal(releaseMajor("v2.0.0+linux"), 2);
  });
  it("development builds and junk give nothing", () => {
    for (const v of ["devel", "(devel)", "5a5e5dd", "106e1bb-dirty", "v1.2.3-4-g5a5e5dd", "v1.2.3-4-g5a5e5dd-dirty", "v1.2.3-dirty", "v1.2", "1.02.3", "", "vx.y.z"]) {
      assert.equal(releaseMajor(v), undefined, v);
    }
  });
});

describe("decideProtocol", () => {
  it("a bundled binary always matches, even one that says otherwise", () => {
    assert.equal(decideProtocol(report("v9.0.0", 99), "bundled", expected).kind, "match");
    assert.equal(decideProtocol(report("devel"), "bundled", expected).kind, "match");
  });
  it("matching protocol_version", () => {
    const d = decideProtocol(report("v7.0.0", 3), "setting", expected);
    assert.deepEqual(d, { kind: "match", basis: "protocol_version", detail: "ctxd v7.0.0 speaks protocol 3" });
  });
  it("protocol_version decides over the release major, both ways", () => {
    assert.equal(decideProtocol(report("v2.1.0", 4), "PATH", expected).kind, "mismatch");
    assert.equal(decideProtocol(report("devel", 3), "PATH", expected).kind, "match");
  });
  it("mismatching protocol_version is refused with what to do", () => {
    const d = decideProtocol(report("v2.0.0", 2), "setting", expected);
    assert.equal(d.kind, "mismatch");
    assert.match(d.kind === "mismatch" ? d.message : "", /^ctxd v2\.0\.0 speaks protocol 2, but this extension speaks protocol 3: set ctxd\.server\.path/);
  });
  it("without protocol_version, a release of the same major matches", () => {
    assert.deepEqual(decideProtocol(report("v2.7.1"), "PATH", expected), { kind: "match", basis: "major", detail: "ctxd v2.7.1 is a 2.x release" });
  });
  it("without protocol_version, a release of another major is refused", () => {
    const d = decideProtocol(report("v3.0.0"), "setting", expected);
    assert.equal(d.kind, "mismatch");
    assert.match(d.kind === "mismatch" ? d.message : "", /ctxd v3\.0\.0 is a 3\.x release, but this extension speaks the protocol of ctxd 2\.x/);
  });
  it("an unparsable version or protocol_version is unknown: started with a warning", () => {
    for (const r of [report("devel"), report("106e1bb"), report("v2.0.0-3-gabc1234-dirty"), report("devel", "3"), report("devel", 3.5)]) {
      const d = decideProtocol(r, "setting", expected);
      assert.equal(d.kind, "unknown", JSON.stringify(r));
      assert.match(d.kind === "unknown" ? d.message : "", /development build that does not say which protocol it speaks/);
    }
    const d = decideProtocol(report("devel", "3"), "PATH", expected);
    assert.match(d.kind === "unknown" ? d.message : "", /its protocol_version "3" is not an integer/);
  });
  it("an unparsable protocol_version falls back to the release major", () => {
    assert.equal(decideProtocol(report("v2.0.0", "x"), "PATH", expected).kind, "match");
    assert.equal(decideProtocol(report("v1.0.0", null), "PATH", expected).kind, "mismatch");
  });
  it("the defaults are the extension's: ServerMajor is package.json's major", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string };
    assert.equal(releaseMajor(pkg.version), ServerMajor);
    assert.equal(decideProtocol(report(`v${ServerMajor}.9.9`), "PATH").kind, "match");
    assert.equal(decideProtocol(report("v0.0.1", ProtocolVersion), "PATH").kind, "match");
    assert.equal(decideProtocol(report(`v${ServerMajor + 1}.0.0`), "PATH").kind, "mismatch");
  });
});
