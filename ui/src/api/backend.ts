//! The one interface the UI talks to: the generated `Client` (client.ts, one method per
//! operation declared in src/api/ops.rs) over one of two transports: HTTP + server-sent
//! events against `provex serve` (http.ts), and Tauri IPC in the desktop window (tauri.ts).

import { Client, type Transport } from "./client";
import type { ApiError, ErrorCode } from "./contract";

export type { StreamHandlers, Subscription, Transport, Bytes } from "./client";

/** Thrown by every Backend method on failure: the `{code, message}` of the boundary. */
export class BackendError extends Error {
  constructor(public readonly code: ErrorCode, message: string) {
    super(message);
    this.name = "BackendError";
  }

  static from(err: ApiError): BackendError {
    return new BackendError(err.code, err.message);
  }
}

/** The backend: every declared operation as a method. */
export type Backend = Client;

export function backendOver(transport: Transport): Backend {
  return new Client(transport);
}

/** Whether `value` is a `{code, message}` with a code of the contract. */
export function isApiError(value: unknown, codes: readonly ErrorCode[]): value is ApiError {
  if (!value || typeof value !== "object") return false;
  const v = value as { code?: unknown; message?: unknown };
  return typeof v.code === "string" && (codes as readonly string[]).includes(v.code) && typeof v.message === "string";
}
