/** The part of pngjs 7 (CommonJS, no bundled types) that tapedeck uses. */
declare module 'pngjs' {
  export interface PNGOptions {
    width?: number;
    height?: number;
    colorType?: number;
    inputColorType?: number;
    inputHasAlpha?: boolean;
    deflateLevel?: number;
    deflateStrategy?: number;
    filterType?: number | number[];
  }
  export class PNG {
    constructor(options?: PNGOptions);
    width: number;
    height: number;
    data: Buffer;
    static sync: {
      read(buffer: Buffer, options?: PNGOptions): PNG;
      write(png: PNG | { width: number; height: number; data: Buffer }, options?: PNGOptions): Buffer;
    };
  }
  const pngjs: { PNG: typeof PNG };
  export default pngjs;
}
