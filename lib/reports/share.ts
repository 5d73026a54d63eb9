import { randomBytes } from "node:crypto";
import { z } from "zod";
import { sha256Hex } from "@/lib/replay";

export const ExpiresIn = z.enum(["1d", "7d", "30d", "never"]);
export type ExpiresIn = z.infer<typeof ExpiresIn>;

const DAY_MS = 24 * 60 * 60 * 1000;
const DAYS: Record<Exclude<ExpiresIn, "never">, number> = { "1d": 1, "7d": 7, "30d": 30 };

export const EXPIRY_LABELS: Record<ExpiresIn, string> = {
  "1d": "1 day",
  "7d": "7 days",
  "30d": "30 days",
  never: "never",
};

export function expiryDate(expiresIn: ExpiresIn, now: Date): Date | null {
  return expiresIn === "never" ? null : new Date(now.getTime() + DAYS[expiresIn] * DAY_MS);
}

/** A new share token: 128 random bits, base64url (22 characters). Shown once, never stored. */
export function newShareToken(): string {
  return randomBytes(16).toString("base64url");
}

/** Only tokens of the shape we issue are looked up at all. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export function isShareTokenShape(token: unknown): token is string {
  return typeof token === "string" && SHARE_TOKEN_PATTERN.test(token);
}

/** What is stored for a token: its SHA-256, hex. */
export function hashShareToken(token: string): string {
  return sha256Hex(token);
}

export type ShareState = "active" | "expired" | "revoked";

export function shareState(link: { revokedAt: Date | null; expiresAt: Date | null }, now: Date): ShareState {
  if (link.revokedAt) return "revoked";
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return "expired";
  return "active";
}

/** The public URL of a share page: the configured base URL, else the request's origin. */
export function shareUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/share/${token}`;
}
