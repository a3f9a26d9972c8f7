import type { CommandContext, OptionSpecs } from '../command.js';

/** record's options: one definition for both kinds; `section` says which kind (or transport) an option belongs to. */
export const PROTOCOL = 'protocol options';
export const NETWORK = 'protocol over a network transport (a recording proxy; stops on SIGINT/SIGTERM or when CMD exits)';
export const TERMINAL = 'terminal options';

export const recordOptions = {
  out: { type: 'string', arg: 'FILE', path: true, help: 'the tape to write (required); its extension says the kind' },
  kind: { type: 'string', arg: 'K', help: 'protocol or terminal, for a name whose extension does not say' },
  'redact-env': {
    type: 'string',
    multiple: true,
    default: [] as string[],
    arg: 'NAME',
    help: "store NAME's value as {{tapedeck.env.NAME}} (repeatable; casts: in the output, the input and the header; replay restores it)",
  },
  boundary: { type: 'string', arg: 'RULE', section: PROTOCOL, help: 'where a response ends: auto (default), done, jsonrpc, idle:MS, id:PATH' },
  'pair-by': { type: 'string', arg: 'PATH', section: PROTOCOL, help: 'plain NDJSON whose requests carry an id at PATH (e.g. id): the server line with the same value answers it (--boundary id:PATH)' },
  'grace-ms': {
    type: 'string',
    arg: 'N',
    section: PROTOCOL,
    help: 'after end of input, or a signal passed on, how long the server may take to exit before its process group is stopped (default 2000)',
  },
  'single-shot': {
    type: 'boolean',
    section: PROTOCOL,
    help: "seed 000's single-shot mode: all of stdin is one request (sent, then stdin closed), the output until CMD exits its response; detected without the flag when stdin is one JSON value over several lines",
  },
  transport: { type: 'string', arg: 'T', section: NETWORK, help: 'stdio (default), http or unix' },
  listen: {
    type: 'string',
    arg: 'ADDR',
    section: NETWORK,
    help: 'http: HOST:PORT (default 127.0.0.1 and a free port; loopback unless ADDR names another address); unix: a socket path in a directory only you can write to (default: a private one). The address is printed.',
  },
  port: { type: 'string', arg: 'N', section: NETWORK, help: 'http: the same as --listen 127.0.0.1:N (seed 000; --listen wins when both are set)' },
  socket: { type: 'string', arg: 'PATH', section: NETWORK, help: 'unix: the same as --listen PATH (seed 000)' },
  upstream: {
    type: 'string',
    arg: 'URL',
    section: NETWORK,
    help: 'a running server: http://HOST:PORT or unix:PATH; or give CMD with {{port}} or {{socket}}, filled in with a free port or a private socket',
  },
  'max-body': { type: 'string', arg: 'BYTES', section: NETWORK, help: 'refuse larger request bodies with 413 (default 8 MiB)' },
  rows: { type: 'string', arg: 'R', section: TERMINAL, help: "terminal rows (default: the real terminal's, else 24)" },
  cols: { type: 'string', arg: 'C', section: TERMINAL, help: "terminal columns (default: the real terminal's, else 80)" },
  title: { type: 'string', arg: 'T', section: TERMINAL, help: "the cast's title" },
  format: { type: 'string', arg: 'v3|v2', section: TERMINAL, help: 'asciicast version to write (default v3)' },
  json: { type: 'boolean', section: TERMINAL, help: 'one JSON result envelope on stdout when the recording ends' },
} satisfies OptionSpecs;

export type RecordContext = CommandContext<typeof recordOptions>;
