import "server-only";
import diagnostics from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

// Route handlers see a web Request, which carries no peer address, and Next keeps a client's own
// X-Forwarded-For. So the address of the TCP peer is written into a request header here, in
// Node's http server, before anything reads the request — replacing any value a client sent.
// lib/auth/client-address.ts believes X-Forwarded-For only when this peer is a trusted proxy.
export const PEER_ADDRESS_HEADER = "x-ka-peer-address";

const g = globalThis as unknown as { __kaPeerStamp?: boolean };

export function stampPeerAddress(request: IncomingMessage, socket: Socket | undefined = request.socket): void {
  request.headers[PEER_ADDRESS_HEADER] = socket?.remoteAddress ?? "";
}

/** Subscribes once per process to Node's `http.server.request.start` channel (public API). */
export function installPeerAddressStamp(): void {
  if (g.__kaPeerStamp) return;
  g.__kaPeerStamp = true;
  diagnostics.subscribe("http.server.request.start", (message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    stampPeerAddress(request, socket);
  });
}
