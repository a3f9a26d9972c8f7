/**
 * The ground lane's view of xterm.js's execute and CSI handlers, in dense
 * arrays indexed by the code the lane has in hand (a C0 control, a CSI final
 * byte). xterm.js keeps CSI handlers in an object keyed by identifiers up to
 * 2^24 (prefix, intermediates, final byte), which V8 stores as a hash
 * dictionary: looking one up for every sequence was about 5% of the screen
 * thread's time playing a 50 MB cast. Entries are looked up once and kept
 * until a handler is set or cleared (the parser's methods for that are
 * wrapped to empty the cache) or the parser swaps its tables (as its dispose does).
 */

export type ExecuteHandler = () => boolean;
export type CsiHandler = (params: unknown) => boolean | Promise<boolean>;

export interface HandlerTables {
  _executeHandlers: Record<number, ExecuteHandler | undefined>;
  _csiHandlers: Record<number, CsiHandler[] | undefined>;
  setExecuteHandler(flag: string, handler: ExecuteHandler): void;
  clearExecuteHandler(flag: string): void;
  registerCsiHandler(id: object, handler: CsiHandler): { dispose(): void };
  clearCsiHandler(id: object): void;
}

const WRAPPED = ['setExecuteHandler', 'clearExecuteHandler', 'registerCsiHandler', 'clearCsiHandler'] as const;

/** Whether the parser has the tables and the methods the cache relies on. */
export function hasHandlerTables(parser: Partial<HandlerTables>): parser is HandlerTables {
  return typeof parser._executeHandlers === 'object' && typeof parser._csiHandlers === 'object' && WRAPPED.every((name) => typeof parser[name] === 'function');
}

/** Codes the cache holds: C0 controls and CSI final bytes are all below this. */
const SIZE = 0x80;

export class HandlerCache {
  /** undefined: not looked up yet; null: the parser has none. */
  private readonly execute: (ExecuteHandler | null | undefined)[] = new Array(SIZE).fill(undefined);
  private readonly csi: (CsiHandler[] | null | undefined)[] = new Array(SIZE).fill(undefined);
  private executeSource: object;
  private csiSource: object;

  constructor(private readonly parser: HandlerTables) {
    this.executeSource = parser._executeHandlers;
    this.csiSource = parser._csiHandlers;
    for (const name of WRAPPED) {
      const original = parser[name] as (...args: unknown[]) => unknown;
      const cache = this;
      (parser as unknown as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
        cache.clear();
        return original.apply(this, args);
      };
    }
  }

  /** The execute handler for a C0 control (code < 0x80), or null. */
  executeHandler(code: number): ExecuteHandler | null {
    if (this.parser._executeHandlers !== this.executeSource) this.clear();
    const cached = this.execute[code];
    return cached !== undefined ? cached : (this.execute[code] = this.parser._executeHandlers[code] ?? null);
  }

  /** The handlers for a CSI with no prefix or intermediates and this final byte (< 0x80), or null. */
  csiHandlers(final: number): CsiHandler[] | null {
    if (this.parser._csiHandlers !== this.csiSource) this.clear();
    const cached = this.csi[final];
    return cached !== undefined ? cached : (this.csi[final] = this.parser._csiHandlers[final] ?? null);
  }

  private clear(): void {
    this.execute.fill(undefined);
    this.csi.fill(undefined);
    this.executeSource = this.parser._executeHandlers;
    this.csiSource = this.parser._csiHandlers;
  }
}
