/** What a step did, in a few words: a model step by the tools it called (or "replied"), others by name. */
export function stepWords(e: { kind: string; name: string; output: unknown }): string {
  if (e.kind !== "model_call") return e.name;
  const calls = (e.output as { toolCalls?: { name: string }[] } | null)?.toolCalls ?? [];
  return calls.length > 0 ? `called ${calls.map((c) => c.name).join(", ")}` : "replied";
}
