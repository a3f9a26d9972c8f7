import type { OptionSpecs } from './command.js';

/** The options shared by replay and serve for normalisers and the config file. */
export const normaliserOptionSpec = {
  ignore: { type: 'string', multiple: true, default: [] as string[], arg: 'JSONPATH', help: 'ignore a volatile JSON value on both sides (repeatable)' },
  filter: { type: 'string', multiple: true, default: [] as string[], arg: 'RE=REPL', help: 'rewrite volatile bytes on both sides before comparing (repeatable)' },
  'ignore-key-order': { type: 'boolean', help: 'compare JSON objects whatever the order of their keys' },
  config: { type: 'string', arg: 'FILE', path: true, help: 'normalisers (also scoped per method, tool or op), masks and defaults (default ./tapedeck.config.json if present)' },
} satisfies OptionSpecs;
