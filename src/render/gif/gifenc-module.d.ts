/** The part of gifenc 1.0.3 (no bundled types) that tapedeck uses. */
declare module 'gifenc' {
  export interface FrameOptions {
    palette?: number[][];
    delay?: number;
    repeat?: number;
    dispose?: number;
    first?: boolean;
    transparent?: boolean;
    transparentIndex?: number;
    colorDepth?: number;
  }
  export interface Encoder {
    writeHeader(): void;
    writeFrame(index: Uint8Array, width: number, height: number, options?: FrameOptions): void;
    finish(): void;
    bytesView(): Uint8Array;
    reset(): void;
  }
  export function GIFEncoder(options?: { auto?: boolean; initialCapacity?: number }): Encoder;
  export function quantize(rgba: Uint8Array, maxColors: number, options?: { format?: 'rgb565' | 'rgb444' | 'rgba4444' }): number[][];
  export function applyPalette(rgba: Uint8Array, palette: number[][], format?: 'rgb565' | 'rgb444' | 'rgba4444'): Uint8Array;
}
