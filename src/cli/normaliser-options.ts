import { loadConfig, type TapedeckConfig } from '../core/config.js';
import { Normaliser, parseFilter, validateJsonPath } from '../core/normalise.js';

/** The option spec shared by replay and serve for normalisers and the config file. */
export const normaliserOptionSpec = {
  ignore: { type: 'string' as const, multiple: true as const, default: [] as string[] },
  filter: { type: 'string' as const, multiple: true as const, default: [] as string[] },
  config: { type: 'string' as const },
};

/** Config file first, then flags added on top. */
export function buildNormaliser(values: { ignore?: string[]; filter?: string[]; config?: string }): { normaliser: Normaliser; config: TapedeckConfig } {
  const config = loadConfig(values.config);
  const normaliser = new Normaliser({
    ignore: [...config.ignore, ...(values.ignore ?? []).map(validateJsonPath)],
    filters: [...config.filters, ...(values.filter ?? []).map(parseFilter)],
  });
  return { normaliser, config };
}
