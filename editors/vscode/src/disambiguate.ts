// The one answer to an ambiguous target that builds and Generate Change
// share: a quick pick of the refusal's candidates.

import * as vscode from "vscode";
import type { Candidate, Refusal } from "./contract.gen";
import { candidateItems } from "./render";

/** How many times an ambiguous target may be answered before giving up (each answer may surface another name). */
export const maxDisambiguations = 5;

/**
 * The candidate the user picks for a REFUSE_AMBIGUOUS_TARGET with
 * candidates, while fewer than maxDisambiguations were answered; undefined
 * when the user cancels the pick, null for any other refusal.
 */
export async function pickCandidate(refusal: Refusal, answered: number): Promise<Candidate | undefined | null> {
  if (refusal.code !== "REFUSE_AMBIGUOUS_TARGET" || (refusal.candidates?.length ?? 0) === 0 || answered >= maxDisambiguations) {
    return null;
  }
  const pick = await vscode.window.showQuickPick(candidateItems(refusal.candidates ?? []), {
    title: "ctxd: the target is ambiguous; which one is meant?",
    placeHolder: refusal.message,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return pick?.candidate;
}
