// Type-level tests: `tsc --strict` (run by the workspace's `cargo test`)
// fails when the declarations stop narrowing as lanes rely on. Never run.
import {
  decodeFrameBody,
  FrameDecoder,
  parseEnvelope,
  UnknownCall,
  UnknownEvent,
  type DownloadUpdateParams,
  type Envelope,
  type TaskState,
  TaskStateValues,
} from "../index.js";

export function describe(value: unknown): string {
  const envelope: Envelope = parseEnvelope(value);
  switch (envelope.kind) {
    case "call": {
      const body = envelope.body;
      if (body instanceof UnknownCall) return `unknown method ${body.method}`;
      switch (body.method) {
        case "download.add":
          return body.params.spec.url;
        case "download.provideAuth":
          // A Secret, not a string: reading it is deliberate.
          return body.params.password.reveal().length.toString();
        default:
          return body.method;
      }
    }
    case "reply":
      return `reply ${envelope.id}`;
    case "error":
      return envelope.id === null ? "error without id" : `error ${envelope.body.code}`;
    case "event": {
      const body = envelope.body;
      if (body instanceof UnknownEvent) return "skipped";
      if (body.name === "event.task.state") {
        const state: TaskState = body.params.state;
        return state;
      }
      return body.name;
    }
  }
}

// Absent and null stay apart: null clears the cap.
export const clear: DownloadUpdateParams = { taskId: "t", patch: { speedLimitBytesPerSec: null } };
export const keep: DownloadUpdateParams = { taskId: "t", patch: {} };
export const states: readonly TaskState[] = TaskStateValues;

// Bytes as TextDecoder takes them; a string, which the runtime refuses, is
// a type error too.
export function feed(decoder: FrameDecoder, chunk: Uint8Array, whole: ArrayBuffer, view: DataView): void {
  decoder.push(chunk);
  decoder.push(whole);
  decoder.push(view);
  decodeFrameBody(whole);
  // @ts-expect-error a string is not bytes
  decoder.push("\u0000\u0000\u0000\u0001x");
}
