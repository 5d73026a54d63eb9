import type { IncomingMessage } from "node:http";
import type { BlockList } from "node:net";

export const CLIENT_ADDRESS_HEADER: "x-branchpoint-client-ip";
export const SERVER_MARK: "BRANCHPOINT_SERVER_SETS_CLIENT_IP";
export type TrustedProxies = { entries: string[]; list: BlockList };
export function normalizeAddress(value: unknown): string | null;
export function parseTrustedProxies(value: string | undefined): TrustedProxies;
export function clientAddress(
  remoteAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string;
export function setClientAddress(req: IncomingMessage, trusted: TrustedProxies): void;
