import { CLIENT_ADDRESS_HEADER, SERVER_MARK } from "@/scripts/client-address.mjs";

export { CLIENT_ADDRESS_HEADER };

/**
 * The request headers the client address may be read from: CLIENT_ADDRESS_HEADER
 * when our server (scripts/server.mjs) runs this process, since it replaces any
 * value the client sent; none otherwise (`next dev`, a bare `next start`), where
 * any header could be the client's own say. With none, the sign-in limit counts
 * every client in one shared bucket, which is stricter, never looser.
 */
export function clientAddressHeaders(): string[] {
  return process.env[SERVER_MARK] === "1" ? [CLIENT_ADDRESS_HEADER] : [];
}
