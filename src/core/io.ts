/**
 * Where a CLI run reads and writes: the real process for the bin, buffers for a
 * test calling main(argv, io) in-process. Commands use this instead of process.*
 * so one process can run many commands side by side.
 */
export interface CliOutput {
  write(chunk: string | Uint8Array): boolean;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

export interface CliIO {
  stdout: CliOutput;
  stderr: CliOutput;
  /** Absent: no input (as a closed stdin). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}
