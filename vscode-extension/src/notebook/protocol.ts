/**
 * The JSON lines `python -m spore_kernel.bridge` reads and writes (its module docstring is the full
 * description). Types only, so the client, the controller and the tests agree on one shape.
 */

export type RequestType =
  | "start" | "execute" | "evaluate" | "complete" | "inspect" | "input_reply" | "interrupt" | "restart" | "shutdown";

/** Every request gets exactly one reply; `ok: false` carries the bridge's reason. */
export interface BridgeReply {
  reply: number | string;
  ok: boolean;
  error?: string;
  /** set on a failed execute when the kernel died / was restarted / was shut down meanwhile */
  dead?: boolean;
  restarted?: boolean;
  stopped?: boolean;
  [field: string]: unknown;
}

export interface StartReply extends BridgeReply {
  kernel: { name: string; source: "installed" | "built-in"; spec: string; argv: string[]; display_name: string; cwd: string; pid?: number };
  connection: { transport: "ipc" | "tcp"; ip: string };
  implementation?: string;
}

export interface ExecuteReply extends BridgeReply {
  execution_count?: number | null;
  status?: "ok" | "error" | "aborted";
  ename?: string;
  evalue?: string;
}

export type OutputMsgType = "stream" | "display_data" | "update_display_data" | "execute_result" | "error" | "clear_output";

export type BridgeEvent =
  | { event: "output"; id: number | string | null; cell: string | null; msg_type: OutputMsgType; content: Record<string, unknown> }
  | { event: "input_request"; id: number | string | null; cell: string | null; prompt: string; password: boolean }
  | { event: "status"; id: number | string | null; state: "busy" | "idle" }
  | { event: "kernel_died"; exit_code: number | null; message: string }
  | { event: "error"; message: string };
