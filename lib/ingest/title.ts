/**
 * A title a source gave its run in its metadata (`title`, else `name`): the AI SDK's telemetry
 * metadata, an Agents SDK trace's metadata. Preferred to the first user message, which runs of one
 * prompt share. Cut to 80 characters as the other titles are; null when there is none.
 */
export function metadataTitle(metadata: unknown): string | null {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  for (const key of ["title", "name"]) {
    const value = (metadata as Record<string, unknown>)[key];
    if (typeof value !== "string") continue;
    const text = value.replace(/\s+/g, " ").trim();
    if (text) return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  }
  return null;
}
