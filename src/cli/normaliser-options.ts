/** The option spec shared by replay and serve for normalisers and the config file. */
export const normaliserOptionSpec = {
  ignore: { type: 'string' as const, multiple: true as const, default: [] as string[] },
  filter: { type: 'string' as const, multiple: true as const, default: [] as string[] },
  'ignore-key-order': { type: 'boolean' as const },
  config: { type: 'string' as const },
};
