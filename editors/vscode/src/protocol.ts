// Whether the extension speaks the protocol of the binary it is about to
// start. Pure: the caller runs `ctxd version --json` and passes what it
// printed, so every decision is unit-tested without a binary.
//
// What "protocol version" means, in order of preference:
//  1. The `protocol_version` integer of `ctxd version --json`, compared with
//     ProtocolVersion (generated into contract.gen.ts from the Go constant
//     workspace.ProtocolVersion, so the two change together). Binaries
//     older than the field do not print it.
//  2. Otherwise the major version of the release (`version`: "v1.4.2",
//     "1.4.2-rc.1"), compared with ServerMajor: the wire contract the
//     extension was generated against (contract.gen.ts) only changes
//     incompatibly with a new major release.
//  3. A version that is not a release (a development build: "devel", a
//     commit such as "5a5e5dd", "v0.3.0-4-g5a5e5dd-dirty") says nothing
//     about its protocol: the server is started, with a warning in the
//     output, since the user built it from the sources they chose.
// A binary bundled with the extension (server/ctxd) was built with it and
// always matches.

import { ProtocolVersion } from "./contract.gen";
import type { BinarySource } from "./lookup";

/** The `protocol_version` a server must report, when it reports one. */
export { ProtocolVersion };

/** The ctxd release major whose protocol the extension speaks (package.json's major; a test keeps them equal). */
export const ServerMajor = 0;

/** What `ctxd version --json` printed, as far as the decision needs it. */
export interface VersionReport {
  /** `version`: a release ("v1.2.3"), or a development build's name. */
  version: string;
  /** `commit`, when printed. */
  commit?: string;
  /** `platform`, when printed. */
  platform?: string;
  /** `protocol_version` as printed: any JSON value, or undefined when absent. */
  protocol?: unknown;
}

/** The protocol the extension speaks. */
export interface Expected {
  protocol: number;
  major: number;
}

export type ProtocolDecision =
  /** Start it. `basis` says what was compared. */
  | { kind: "match"; basis: "bundled" | "protocol_version" | "major"; detail: string }
  /** Refuse it: `message` is shown to the user. */
  | { kind: "mismatch"; message: string }
  /** Start it with `message` as a warning: the binary does not say which protocol it speaks. */
  | { kind: "unknown"; message: string };

/** The report in `ctxd version --json`'s output, or undefined when the output is not that JSON object. */
export function parseVersionJson(stdout: string): VersionReport | undefined {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return undefined;
  }
  const o = value as Record<string, unknown>;
  if (typeof o.version !== "string" || o.version.trim() === "") {
    return undefined;
  }
  const report: VersionReport = { version: o.version.trim() };
  if (typeof o.commit === "string") {
    report.commit = o.commit;
  }
  if (typeof o.platform === "string") {
    report.platform = o.platform;
  }
  if ("protocol_version" in o) {
    report.protocol = o.protocol_version;
  }
  return report;
}

/** The version word of a `ctxd version` line ("ctxd 1.2.3 (commit …)" gives "1.2.3"). */
export function versionWord(line: string): string | undefined {
  const m = /^ctxd (\S+)/.exec(line.trim());
  return m?.[1];
}

/**
 * The major number of a release version ("1.2.3", "v1.2.3", "1.2.3-rc.1",
 * "1.2.3+build"), or undefined for anything else. A `git describe` of a
 * commit after a tag ("v1.2.3-4-g5a5e5dd", with "-dirty" or not) is a
 * development build, not a release, and gives undefined.
 */
export function releaseMajor(version: string): number | undefined {
  const m = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(version.trim());
  if (m === null) {
    return undefined;
  }
  const pre = m[4];
  if (pre !== undefined && (/^\d+-g[0-9a-f]+(?:-dirty)?$/.test(pre) || pre === "dirty")) {
    return undefined;
  }
  return Number(m[1]);
}

const fix = "set ctxd.server.path to a matching ctxd, or unset it to use the server bundled with the extension";

/** Decides whether the extension may start a binary that reported `report`. */
export function decideProtocol(report: VersionReport, source: BinarySource, expected: Expected = { protocol: ProtocolVersion, major: ServerMajor }): ProtocolDecision {
  if (source === "bundled") {
    return { kind: "match", basis: "bundled", detail: `bundled ctxd ${report.version}` };
  }
  const p = report.protocol;
  if (typeof p === "number" && Number.isInteger(p)) {
    if (p === expected.protocol) {
      return { kind: "match", basis: "protocol_version", detail: `ctxd ${report.version} speaks protocol ${p}` };
    }
    return {
      kind: "mismatch",
      message: `ctxd ${report.version} speaks protocol ${p}, but this extension speaks protocol ${expected.protocol}: ${fix}`,
    };
  }
  const major = releaseMajor(report.version);
  if (major !== undefined) {
    if (major === expected.major) {
      return { kind: "match", basis: "major", detail: `ctxd ${report.version} is a ${major}.x release` };
    }
    return {
      kind: "mismatch",
      message: `ctxd ${report.version} is a ${major}.x release, but this extension speaks the protocol of ctxd ${expected.major}.x: ${fix}`,
    };
  }
  const printed = p === undefined ? "" : ` (its protocol_version ${JSON.stringify(p)} is not an integer)`;
  return {
    kind: "unknown",
    message: `ctxd ${report.version} is a development build that does not say which protocol it speaks${printed}; started without the check`,
  };
}
